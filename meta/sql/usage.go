package sql

import (
	"context"
	dbsql "database/sql"
	"log/slog"

	"cairn/meta"
)

// The volume's usage (bytes and inodes) is spread over usageShards rows of
// cairn_usage, ids 1 to usageShards, and is their sum. A transaction
// changes the row of its connection (dialect.usageShard), which it holds
// locked until it commits: with one row, every create, removal and write
// of every client queued behind the commit of the one before, whatever
// directories they touched. A new volume holds the whole usage in the
// first row and nothing in the others.
const usageShards = 16

// usage sums the volume's usage rows; ErrNotFormatted when there are none.
func (c *conn) usage() (space, inodes int64, err error) {
	rows := 0
	err = c.each("SELECT space, inodes FROM cairn_usage", func(r *dbsql.Rows) error {
		var s, i int64
		if err := r.Scan(&s, &i); err != nil {
			return err
		}
		space, inodes, rows = space+s, inodes+i, rows+1
		return nil
	})
	if err == nil && rows == 0 {
		err = meta.ErrNotFormatted
	}
	return space, inodes, err
}

// insertUsage writes the usage rows of a new volume, the totals in the
// first.
func (c *conn) insertUsage(space, inodes int64) error {
	for id := 1; id <= usageShards; id++ {
		if _, err := c.exec("INSERT INTO cairn_usage (id, space, inodes) VALUES (?, ?, ?)", id, space, inodes); err != nil {
			return err
		}
		space, inodes = 0, 0
	}
	return nil
}

// addUsageShards gives a volume formatted by an earlier release, which
// kept its usage in one row, the rows of the others (empty): a change
// made through a row that does not exist would be lost. Load runs it on
// a volume whose routines are older than this release's, before
// installing them; SQLite, which changes only the first row, has none.
func (e *Engine) addUsageShards(ctx context.Context) {
	err := e.txn(ctx, func(c *conn) error {
		have := map[int64]bool{}
		err := c.each("SELECT id FROM cairn_usage", func(r *dbsql.Rows) error {
			var id int64
			err := r.Scan(&id)
			have[id] = true
			return err
		})
		if err != nil || len(have) >= usageShards {
			return err
		}
		for id := int64(1); id <= usageShards; id++ {
			if have[id] {
				continue
			}
			if _, err := c.exec("INSERT INTO cairn_usage (id, space, inodes) VALUES (?, 0, 0)", id); err != nil {
				return err
			}
		}
		slog.Info("spread the volume's usage over rows of its own for each connection", "rows", usageShards)
		return nil
	})
	if err != nil {
		slog.Warn("volume formatted by an earlier release: cannot add this release's usage rows", "err", err)
	}
}
