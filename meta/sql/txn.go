package sql

import (
	"context"
	dbsql "database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"cairn/meta"
)

// Retry budgets: conflicts are re-run quickly a bounded number of times; a
// lost server is waited for a while, in case it is restarting.
const (
	maxConflictRetries = 50
	reconnectWait      = 30 * time.Second
)

type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (dbsql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*dbsql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *dbsql.Row
}

// conn sends one operation's statements, inside its transaction or, for a
// read that is a single statement, straight to the pool. It counts every
// statement as a round trip.
type conn struct {
	ctx context.Context
	e   *Engine
	q   querier

	// batch: writes wait in pending until the next read or the commit,
	// and go to the server together (dialect.batchArg).
	batch       bool
	pending     []string
	pendingArgs []any
	flushErr    error
}

func (e *Engine) bind(q string) string {
	if !e.d.dollar {
		return q
	}
	if v, ok := e.rebound.Load(q); ok {
		return v.(string)
	}
	r := e.d.rebind(q)
	e.rebound.Store(q, r)
	return r
}

// exec runs a statement that changes rows. In a batched transaction it
// only queues it and reports 0 rows; use execCount when the count matters.
func (c *conn) exec(q string, args ...any) (int64, error) {
	if c.batch {
		c.pending = append(c.pending, c.e.d.rebindFrom(q, len(c.pendingArgs)))
		c.pendingArgs = append(c.pendingArgs, args...)
		return 0, nil
	}
	return c.execCount(q, args...)
}

// execCount runs a statement now and returns the number of rows it
// changed.
func (c *conn) execCount(q string, args ...any) (int64, error) {
	q, args, merged := c.merge(c.e.bind(q), args)
	if !merged {
		if err := c.flush(); err != nil {
			return 0, err
		}
	}
	c.e.roundTrips.Add(1)
	res, err := c.q.ExecContext(c.ctx, q, args...)
	if err != nil {
		if merged {
			c.flushErr = err
		}
		return 0, err
	}
	return res.RowsAffected() // of the last statement, q
}

// merge puts the queued statements in front of q when the dialect sends
// them with the next statement (batchReads), and reports whether it did.
// An error of the merged string then stands for the queued writes' too.
func (c *conn) merge(q string, args []any) (string, []any, bool) {
	if !c.batch || !c.e.d.batchReads || len(c.pending) == 0 || c.flushErr != nil {
		return q, args, false
	}
	q = strings.Join(c.pending, ";\n") + ";\n" + q
	args = append(append([]any(nil), c.pendingArgs...), args...)
	c.pending, c.pendingArgs = c.pending[:0], c.pendingArgs[:0]
	return q, args, true
}

// flush sends the queued writes, in one round trip.
func (c *conn) flush() error {
	if len(c.pending) == 0 || c.flushErr != nil {
		return c.flushErr
	}
	c.e.roundTrips.Add(1)
	args := c.pendingArgs
	if c.e.d.batchArg != nil {
		args = append([]any{c.e.d.batchArg}, args...)
	}
	_, err := c.q.ExecContext(c.ctx, strings.Join(c.pending, ";\n"), args...)
	c.pending, c.pendingArgs = c.pending[:0], c.pendingArgs[:0]
	c.flushErr = err
	return err
}

func (c *conn) query(q string, args ...any) (*dbsql.Rows, error) {
	q, args, merged := c.merge(c.e.bind(q), args)
	if !merged {
		if err := c.flush(); err != nil {
			return nil, err
		}
	}
	c.e.roundTrips.Add(1)
	rows, err := c.q.QueryContext(c.ctx, q, args...)
	if err != nil && merged {
		c.flushErr = err
	}
	return rows, err
}

// queryRow runs a query returning one row. A failed flush of queued
// writes surfaces as the query's error (the transaction is aborted) and,
// by its own cause, from the transaction.
func (c *conn) queryRow(q string, args ...any) *dbsql.Row {
	q, args, merged := c.merge(c.e.bind(q), args)
	if !merged {
		c.flush()
	}
	c.e.roundTrips.Add(1)
	row := c.q.QueryRowContext(c.ctx, q, args...)
	if merged && row.Err() != nil {
		c.flushErr = row.Err()
	}
	return row
}

// read runs fn outside a transaction: for operations that are one
// statement, which the database runs atomically on its own.
func (e *Engine) read(ctx context.Context, fn func(c *conn) error) error {
	return e.retry(ctx, func() (bool, error) {
		return false, fn(&conn{ctx: ctx, e: e, q: e.db})
	})
}

// write runs fn, a single statement that changes data, outside a
// transaction (the statement is atomic on its own). The statement must be
// safe to run twice (a counter that skips values, a heartbeat, a delete),
// since it is re-run when the connection breaks under it.
func (e *Engine) write(ctx context.Context, fn func(c *conn) error) error {
	return e.retry(ctx, func() (bool, error) {
		if e.writeMu != nil {
			e.writeMu.Lock()
			defer e.writeMu.Unlock()
		}
		return false, fn(&conn{ctx: ctx, e: e, q: e.db})
	})
}

// txn runs fn in one transaction, re-running it whole when the database
// reports a conflict. Errors fn returns itself (meta's errno sentinels)
// roll back and are returned as they are.
func (e *Engine) txn(ctx context.Context, fn func(c *conn) error) error {
	return e.retry(ctx, func() (bool, error) { return e.txnOnce(ctx, fn) })
}

// txnOnce runs one attempt; committing reports whether the failure came
// from COMMIT, after which the outcome is unknown if the connection died.
func (e *Engine) txnOnce(ctx context.Context, fn func(c *conn) error) (committing bool, err error) {
	if e.d.batch {
		return e.txnBatched(ctx, fn)
	}
	if e.group != nil {
		return e.txnGrouped(ctx, fn)
	}
	if e.writeMu != nil {
		e.writeMu.Lock()
		defer e.writeMu.Unlock()
	}
	e.roundTrips.Add(1)
	tx, err := e.db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	if err := fn(&conn{ctx: ctx, e: e, q: tx}); err != nil {
		e.roundTrips.Add(1)
		_ = tx.Rollback()
		return false, err
	}
	e.roundTrips.Add(1)
	if err := tx.Commit(); err != nil {
		if e.d.unknownOutcome(err) {
			return true, fmt.Errorf("%w: the connection broke during COMMIT, the operation may or may not have happened: %v", meta.ErrIO, err)
		}
		return false, err
	}
	return true, nil
}

// retry runs attempt until it succeeds, fails for good, or the budget is
// spent.
func (e *Engine) retry(ctx context.Context, attempt func() (committing bool, err error)) error {
	var lostSince time.Time
	for n := 0; ; n++ {
		committing, err := attempt()
		if err == nil {
			e.connected.Store(true)
			return nil
		}
		var errno meta.Errno
		if errors.As(err, &errno) {
			return err // the operation's own POSIX result
		}
		var wait time.Duration
		switch {
		case e.d.retryable(err) || errors.Is(err, errStale) || errors.Is(err, errGroupAborted):
			if n >= maxConflictRetries {
				return fmt.Errorf("%w: gave up after %d attempts: %v", meta.ErrConflict, n+1, err)
			}
			wait = time.Duration(rand.IntN(1<<min(n, 8))+1) * 100 * time.Microsecond
		case e.d.connectionLost(err) && e.connected.Load() && !committing:
			if lostSince.IsZero() {
				lostSince = time.Now()
			}
			if time.Since(lostSince) > reconnectWait {
				return fmt.Errorf("%w: database unreachable for %v: %v", meta.ErrIO, reconnectWait, err)
			}
			wait = 200 * time.Millisecond
		default:
			return err
		}
		e.retries.Add(1)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// txnBatched runs one attempt on a connection of its own, sending the
// writes together with COMMIT: BEGIN, the reads the operation needs, and
// one round trip for everything it changes.
func (e *Engine) txnBatched(ctx context.Context, fn func(c *conn) error) (committing bool, err error) {
	sc, err := e.db.Conn(ctx)
	if err != nil {
		return false, err
	}
	defer sc.Close()
	c := &conn{ctx: ctx, e: e, q: sc, batch: true}
	if e.d.batchReads {
		c.pending = append(c.pending, "BEGIN") // goes with the first statement
	} else {
		e.roundTrips.Add(1)
		if _, err := sc.ExecContext(ctx, "BEGIN"); err != nil {
			return false, err
		}
	}
	err = fn(c)
	if c.flushErr != nil {
		err = c.flushErr // the cause, not the "transaction is aborted" after it
	}
	if err == nil {
		c.pending = append(c.pending, "COMMIT")
		c.flushErr = nil
		if err = c.flush(); err == nil {
			return true, nil
		}
		if e.d.unknownOutcome(err) {
			return true, fmt.Errorf("%w: the connection broke during COMMIT, the operation may or may not have happened: %v", meta.ErrIO, err)
		}
	}
	if len(c.pending) > 0 && c.pending[0] == "BEGIN" {
		return false, err // nothing reached the server
	}
	e.roundTrips.Add(1)
	_, _ = sc.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
	return false, err
}
