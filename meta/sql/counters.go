package sql

import (
	"context"

	"cairn/meta"
)

// next reserves n values of counter name and returns the first.
func (c *conn) next(name string, n uint64) (uint64, error) {
	var last int64
	if c.e.d.returning {
		err := c.queryRow("UPDATE cairn_counter SET value = value + ? WHERE name = ? RETURNING value", int64(n), name).Scan(&last)
		if isNoRows(err) {
			return 0, meta.ErrNotFormatted
		}
		return uint64(last) - n + 1, err
	}
	if c.e.d.mysqlUpsert {
		// MySQL's idiom for a sequence: the new value comes back in the
		// UPDATE's own reply, as the "last insert id".
		if err := c.flush(); err != nil {
			return 0, err
		}
		c.e.roundTrips.Add(1)
		res, err := c.q.ExecContext(c.ctx, "UPDATE cairn_counter SET value = LAST_INSERT_ID(value + ?) WHERE name = ?", int64(n), name)
		if err != nil {
			return 0, err
		}
		if rows, err := res.RowsAffected(); err == nil && rows == 0 {
			return 0, meta.ErrNotFormatted
		}
		id, err := res.LastInsertId()
		return uint64(id) - n + 1, err
	}
	if _, err := c.exec("UPDATE cairn_counter SET value = value + ? WHERE name = ?", int64(n), name); err != nil {
		return 0, err
	}
	err := c.queryRow("SELECT value FROM cairn_counter WHERE name = ?", name).Scan(&last)
	if isNoRows(err) {
		return 0, meta.ErrNotFormatted
	}
	return uint64(last) - n + 1, err
}

// nextID reserves n values in one statement where the database returns
// updated rows, else in a transaction.
func (e *Engine) nextID(ctx context.Context, name string, n uint64) (uint64, error) {
	if n == 0 {
		return 0, meta.ErrInvalid
	}
	var first uint64
	run := e.txn
	if e.d.returning || e.d.mysqlUpsert {
		run = e.write
	}
	err := run(ctx, func(c *conn) (err error) {
		first, err = c.next(name, n)
		return err
	})
	return first, err
}

// NextInodes reserves n inode numbers.
func (e *Engine) NextInodes(ctx context.Context, n uint64) (meta.Ino, error) {
	first, err := e.nextID(ctx, "inode", n)
	return meta.Ino(first), err
}

// NextSlices reserves n slice ids.
func (e *Engine) NextSlices(ctx context.Context, n uint64) (uint64, error) {
	return e.nextID(ctx, "slice", n)
}

// Usage reads the volume's usage counters.
func (e *Engine) Usage(ctx context.Context) (meta.Usage, error) {
	var space, inodes int64
	err := e.read(ctx, func(c *conn) (err error) {
		space, inodes, err = c.usage()
		return err
	})
	return meta.Usage{Space: uint64(space), Inodes: uint64(inodes)}, err
}
