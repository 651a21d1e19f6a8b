package sql

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"cairn/meta"
)

var _ meta.ChangeLog = (*Engine)(nil)

// changeTable holds the change log of a migration: one row per change,
// keyed by its number. The counter "change" in cairn_counter is the log's
// sequence; it exists exactly while the migration record (the setting
// "migration") does. An append updates that counter row first, so
// appends serialize on its row lock and are numbered in commit order.
var changeTable = table{name: "cairn_change", columns: "seq {INT} NOT NULL PRIMARY KEY, body {BLOB} NOT NULL"}

// Migration implements meta.ChangeLog.
func (e *Engine) Migration(ctx context.Context) ([]byte, error) {
	if e.missingFile() {
		return nil, meta.ErrNotFormatted
	}
	var rec []byte
	err := e.read(ctx, func(c *conn) error {
		err := c.queryRow("SELECT value FROM cairn_setting WHERE name = 'migration'").Scan(&rec)
		if isNoRows(err) {
			rec = nil
			return nil
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read the migration record: %w", e.explain(err))
	}
	return rec, nil
}

// SwapMigration implements meta.ChangeLog.
func (e *Engine) SwapMigration(ctx context.Context, old, next []byte) error {
	if next != nil && len(next) == 0 {
		return fmt.Errorf("an empty migration record: %w", meta.ErrInvalid)
	}
	if e.missingFile() {
		return meta.ErrNotFormatted
	}
	if old == nil && next == nil {
		return nil
	}
	if old == nil {
		// A volume formatted before the change log existed lacks its
		// table; DDL cannot run inside the transaction on MySQL.
		c := &conn{ctx: ctx, e: e, q: e.db}
		for _, stmt := range e.d.ddl(changeTable) {
			if _, err := c.exec(stmt); err != nil {
				return fmt.Errorf("create table %s: %w", changeTable.name, e.explain(err))
			}
		}
	}
	err := e.txn(ctx, func(c *conn) error {
		var n int64
		var err error
		switch {
		case old == nil:
			var found []byte
			err = c.queryRow("SELECT value FROM cairn_setting WHERE name = 'migration'").Scan(&found)
			if err == nil {
				return meta.ErrConflict
			}
			if !isNoRows(err) {
				return err
			}
			n, err = c.execCount("INSERT INTO cairn_setting (name, value) VALUES ('migration', ?)", next)
		case next == nil:
			n, err = c.execCount("DELETE FROM cairn_setting WHERE name = 'migration' AND value = ?", old)
		default:
			n, err = c.execCount("UPDATE cairn_setting SET value = ? WHERE name = 'migration' AND value = ?", next, old)
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return meta.ErrConflict
		}
		if old != nil && next != nil {
			return nil
		}
		if _, err := c.exec("DELETE FROM cairn_change"); err != nil {
			return err
		}
		if _, err := c.exec("DELETE FROM cairn_counter WHERE name = 'change'"); err != nil {
			return err
		}
		if next != nil {
			_, err = c.exec("INSERT INTO cairn_counter (name, value) VALUES ('change', 0)")
		}
		return err
	})
	if err != nil && old == nil {
		// Two migrators creating the record at once: the loser's insert
		// may fail on the key rather than find the winner's row.
		if rec, err2 := e.Migration(ctx); err2 == nil && rec != nil && !bytes.Equal(rec, next) {
			return fmt.Errorf("create the migration record: %w", meta.ErrConflict)
		}
	}
	if err != nil {
		return fmt.Errorf("replace the migration record: %w", e.explain(err))
	}
	return nil
}

// AppendChanges implements meta.ChangeLog.
func (e *Engine) AppendChanges(ctx context.Context, changes []meta.Change) (uint64, error) {
	if len(changes) == 0 {
		return 0, meta.ErrInvalid
	}
	var last uint64
	err := e.txn(ctx, func(c *conn) error {
		first, err := c.next("change", uint64(len(changes)))
		if errors.Is(err, meta.ErrNotFormatted) {
			return meta.ErrNoMigration
		}
		if err != nil {
			return err
		}
		for i := range changes {
			seq := first + uint64(i)
			if _, err := c.exec("INSERT INTO cairn_change (seq, body) VALUES (?, ?)", int64(seq), meta.EncodeChange(&changes[i])); err != nil {
				return err
			}
			last = seq
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("append %d changes: %w", len(changes), e.explain(err))
	}
	return last, nil
}

// changesEnd reads the sequence, ErrNoMigration without one.
func (c *conn) changesEnd() (uint64, error) {
	var end int64
	err := c.queryRow("SELECT value FROM cairn_counter WHERE name = 'change'").Scan(&end)
	if isNoRows(err) {
		return 0, meta.ErrNoMigration
	}
	return uint64(end), err
}

// Changes implements meta.ChangeLog.
func (e *Engine) Changes(ctx context.Context, after uint64, limit int) ([]meta.Change, error) {
	var out []meta.Change
	err := e.txn(ctx, func(c *conn) error {
		out = out[:0]
		if _, err := c.changesEnd(); err != nil {
			return err
		}
		rows, err := c.query("SELECT seq, body FROM cairn_change WHERE seq > ? ORDER BY seq LIMIT ?", int64(after), limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var seq int64
			var body []byte
			if err := rows.Scan(&seq, &body); err != nil {
				return err
			}
			ch, err := meta.DecodeChange(uint64(seq), body)
			if err != nil {
				return err
			}
			out = append(out, ch)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("read the changes after %d: %w", after, e.explain(err))
	}
	return out, nil
}

// ChangesEnd implements meta.ChangeLog.
func (e *Engine) ChangesEnd(ctx context.Context) (uint64, error) {
	var end uint64
	err := e.read(ctx, func(c *conn) (err error) {
		end, err = c.changesEnd()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("read the end of the change log: %w", e.explain(err))
	}
	return end, nil
}

// TrimChanges implements meta.ChangeLog.
func (e *Engine) TrimChanges(ctx context.Context, through uint64) error {
	err := e.txn(ctx, func(c *conn) error {
		if _, err := c.changesEnd(); err != nil {
			return err
		}
		_, err := c.exec("DELETE FROM cairn_change WHERE seq <= ?", int64(through))
		return err
	})
	if err != nil {
		return fmt.Errorf("trim the change log through %d: %w", through, e.explain(err))
	}
	return nil
}
