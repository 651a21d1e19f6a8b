package sql

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"cairn/meta"
)

// groupCommit lets concurrent write transactions of one process share a
// COMMIT on a database with a single writer whose commit is a sync
// (SQLite at synchronous=FULL): while one group commits, the operations
// that arrive wait, and the next group runs them one after the other in
// one database transaction, each inside a savepoint of its own, and
// commits them with one sync.
//
// What an acknowledged operation guarantees is unchanged: each caller
// returns only after the COMMIT that made its change durable, and an
// operation that fails with its own errno is rolled back to its savepoint
// without touching the others. Any other failure (the database's own
// error) rolls the whole group back, as the transaction may be gone; the
// operations of the group are then attempted again, each from its start,
// as after a conflict.
type groupCommit struct {
	mu      sync.Mutex
	queue   []*groupMember
	leading bool // a member is running groups
	commits atomic.Uint64
}

// maxGroup bounds how many operations share one commit.
const maxGroup = 64

// groupMember is one operation waiting for its group.
type groupMember struct {
	ctx  context.Context
	fn   func(c *conn) error
	wake chan struct{} // closed when done, or when it is to lead
	lead bool

	committing bool
	err        error
}

// errGroupAborted is the answer of the members of a group that failed for
// another member's cause: retried, as a conflict is.
var errGroupAborted = errors.New("the transaction shared with other operations was rolled back")

// txnGrouped runs fn as part of the next group commit.
func (e *Engine) txnGrouped(ctx context.Context, fn func(c *conn) error) (committing bool, err error) {
	g := e.group
	m := &groupMember{ctx: ctx, fn: fn, wake: make(chan struct{})}
	g.mu.Lock()
	g.queue = append(g.queue, m)
	if g.leading {
		g.mu.Unlock()
		<-m.wake
		if !m.lead {
			return m.committing, m.err
		}
	} else {
		g.leading = true
		g.mu.Unlock()
	}
	// Lead: run groups until this member's has committed, then hand the
	// lead to the first one still waiting.
	for {
		g.mu.Lock()
		n := min(len(g.queue), maxGroup)
		batch := append([]*groupMember(nil), g.queue[:n]...)
		g.queue = g.queue[n:]
		g.mu.Unlock()
		mine := false
		for _, b := range batch {
			mine = mine || b == m
		}
		e.commitGroup(batch)
		for _, b := range batch {
			if b != m {
				close(b.wake)
			}
		}
		if mine {
			break
		}
	}
	g.mu.Lock()
	if len(g.queue) > 0 {
		next := g.queue[0]
		next.lead = true
		close(next.wake)
	} else {
		g.leading = false
	}
	g.mu.Unlock()
	return m.committing, m.err
}

// commitGroup runs batch in one transaction and sets each member's
// outcome.
func (e *Engine) commitGroup(batch []*groupMember) {
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	fail := func(err error, committing bool, ran []bool) {
		for i, b := range batch {
			if ran[i] {
				b.err, b.committing = err, committing
			}
		}
	}
	ran := make([]bool, len(batch)) // took part in the transaction
	for i, b := range batch {
		ran[i] = b.ctx.Err() == nil
		if !ran[i] {
			b.err = b.ctx.Err()
		}
	}
	// The group's statements must not be interrupted by one caller
	// giving up: SQLite rolls the whole transaction back then.
	base := context.Background()
	e.roundTrips.Add(1)
	tx, err := e.db.BeginTx(base, nil)
	if err != nil {
		fail(err, false, ran)
		return
	}
	// Savepoints keep the members of a group apart; one alone needs none.
	members := 0
	for _, r := range ran {
		if r {
			members++
		}
	}
	savepoint := func(q string) error {
		if members == 1 {
			return nil
		}
		e.roundTrips.Add(1)
		_, err := tx.ExecContext(base, q)
		return err
	}
	for i, b := range batch {
		if !ran[i] {
			continue
		}
		if err := savepoint("SAVEPOINT cairn_op"); err != nil {
			_ = tx.Rollback()
			fail(err, false, ran)
			return
		}
		err := b.fn(&conn{ctx: context.WithoutCancel(b.ctx), e: e, q: tx})
		var errno meta.Errno
		switch {
		case err == nil:
			err = savepoint("RELEASE cairn_op")
		case errors.As(err, &errno) && members == 1:
			b.err, ran[i] = err, false
			e.roundTrips.Add(1)
			_ = tx.Rollback()
			return
		case errors.As(err, &errno):
			b.err, ran[i] = err, false
			if err = savepoint("ROLLBACK TO cairn_op"); err == nil {
				err = savepoint("RELEASE cairn_op")
			}
		default:
			b.err, ran[i] = err, false
			_ = tx.Rollback()
			fail(fmt.Errorf("%w: %v", errGroupAborted, err), false, ran)
			return
		}
		if err != nil {
			_ = tx.Rollback()
			fail(err, false, ran)
			return
		}
	}
	e.roundTrips.Add(1)
	e.group.commits.Add(1)
	if err := tx.Commit(); err != nil {
		if e.d.unknownOutcome(err) {
			err = fmt.Errorf("%w: the connection broke during COMMIT, the operation may or may not have happened: %v", meta.ErrIO, err)
		}
		fail(err, true, ran)
		return
	}
	fail(nil, true, ran)
}
