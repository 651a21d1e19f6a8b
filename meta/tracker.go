package meta

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
)

// Tracker is the engine wrapper a client runs behind during an online
// migration (package migrate describes the protocol). It does three
// things, each only when asked:
//
//   - Tracking: while a change log is set (Track), every mutation first
//     appends a pre-mark (ChangeBefore) naming the inodes it may change
//     that are known beforehand, runs, and then appends a post-mark
//     (ChangeAfter) naming those and the inodes the call reported. A
//     mutation whose pre-mark cannot be appended fails with that error
//     and does not run: an untracked change would be lost by the
//     migration. ErrNoMigration (the migration ended) stops tracking and
//     the mutation runs. A post-mark that cannot be appended is logged:
//     the pre-mark stands for it, and the switch copies its inodes.
//   - Pausing: Pause makes new mutations wait and returns once those in
//     flight have returned (with their post-marks); Resume lets them go.
//     Reads are never held.
//   - Swapping: Swap, while paused, replaces the engine every later call
//     goes to.
//
// Sessions, locks and id reservations are held by a pause but not marked:
// they are a client's own state, which it registers again on the engine it
// moves to. The optional interfaces a mount uses to change the tree —
// UnlinkDeleter, BatchRemover, Cloner — are tracked (an engine without
// them answers ErrNotSupported through the Tracker); Unwrap gives the
// current engine for the read-only ones (Describer, Dumper's Dump, ...).
// Any other mutating interface reached through Unwrap bypasses tracking
// and must not be used on a mount's engine.
type Tracker struct {
	engine atomic.Pointer[Engine]

	mu       sync.Mutex
	changed  *sync.Cond // a mutation ended, or the pause was lifted
	paused   bool
	inflight int
	log      ChangeLog // nil when not tracking
	session  uint64
	untrack  int // mutations in flight that started untracked
	op       uint64
}

// NewTracker wraps e; it neither tracks nor pauses until told.
func NewTracker(e Engine) *Tracker {
	t := &Tracker{}
	t.changed = sync.NewCond(&t.mu)
	t.engine.Store(&e)
	return t
}

// Unwrap returns the engine calls currently go to.
func (t *Tracker) Unwrap() Engine { return *t.engine.Load() }

// Track starts tracking mutations into log as session sid, and returns
// once every mutation that started untracked has returned: from then on,
// every mutation that has not returned is tracked (what the client's
// acknowledgement promises).
func (t *Tracker) Track(ctx context.Context, log ChangeLog, sid uint64) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.log, t.session = log, sid
	return t.waitLocked(ctx, func() bool { return t.untrack == 0 })
}

// StopTracking ends tracking; mutations in flight finish their marks.
func (t *Tracker) StopTracking() {
	t.mu.Lock()
	t.log = nil
	t.mu.Unlock()
}

// Tracking reports whether mutations are being tracked.
func (t *Tracker) Tracking() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.log != nil
}

// Pause holds new mutations and returns once none is in flight. With
// ctx's error it lifts its hold again.
func (t *Tracker) Pause(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.paused = true
	if err := t.waitLocked(ctx, func() bool { return t.inflight == 0 }); err != nil {
		t.paused = false
		t.changed.Broadcast()
		return err
	}
	return nil
}

// Resume lets held mutations go.
func (t *Tracker) Resume() {
	t.mu.Lock()
	t.paused = false
	t.changed.Broadcast()
	t.mu.Unlock()
}

// Swap replaces the engine, which only a paused Tracker allows, and
// returns the old one (the caller closes it).
func (t *Tracker) Swap(e Engine) (Engine, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.paused || t.inflight != 0 {
		return nil, errors.New("swap the engine of a tracker that is not paused")
	}
	return *t.engine.Swap(&e), nil
}

// waitLocked waits, with t.mu held, until done or ctx ends.
func (t *Tracker) waitLocked(ctx context.Context, done func() bool) error {
	stop := context.AfterFunc(ctx, func() {
		t.mu.Lock()
		t.changed.Broadcast()
		t.mu.Unlock()
	})
	defer stop()
	for !done() {
		if err := ctx.Err(); err != nil {
			return err
		}
		t.changed.Wait()
	}
	return nil
}

// mutation is one mutating call in flight.
type mutation struct {
	engine  Engine
	log     ChangeLog
	session uint64
	op      uint64
	inodes  []Ino
	tracked bool // counted as tracked (else in Tracker.untrack)
}

// begin waits out a pause, counts the call in flight and, when tracking,
// appends its pre-mark naming inodes.
func (t *Tracker) begin(ctx context.Context, inodes ...Ino) (*mutation, error) {
	return t.enter(ctx, true, inodes)
}

// enter is begin; without mark the call is only held by a pause, never
// marked, and Track does not wait for it.
func (t *Tracker) enter(ctx context.Context, mark bool, inodes []Ino) (*mutation, error) {
	t.mu.Lock()
	if err := t.waitLocked(ctx, func() bool { return !t.paused }); err != nil {
		t.mu.Unlock()
		return nil, err
	}
	t.inflight++
	m := &mutation{engine: t.Unwrap(), log: t.log, session: t.session, inodes: inodes, tracked: t.log != nil || !mark}
	if !mark {
		m.log = nil
	}
	if !m.tracked {
		t.untrack++
	} else if m.log != nil {
		t.op++
		m.op = t.op
	}
	t.mu.Unlock()
	if m.log == nil {
		return m, nil
	}
	_, err := m.log.AppendChanges(ctx, []Change{{Kind: ChangeBefore, Session: m.session, Operation: m.op, Inodes: m.inodes}})
	if errors.Is(err, ErrNoMigration) {
		t.mu.Lock()
		if t.log == m.log {
			t.log = nil
		}
		t.mu.Unlock()
		m.log = nil
		err = nil
	}
	if err != nil {
		m.log = nil // the call does not run: no post-mark
		t.end(ctx, m)
		return nil, fmt.Errorf("%w: record the change for the migration in progress: %v", ErrIO, err)
	}
	return m, nil
}

// end appends the post-mark naming the call's inodes and those it
// reported (0 for none), and ends the call.
func (t *Tracker) end(ctx context.Context, m *mutation, reported ...Ino) {
	if m.log != nil {
		inodes := m.inodes
		for _, ino := range reported {
			if ino != 0 {
				inodes = append(inodes, ino)
			}
		}
		c := Change{Kind: ChangeAfter, Session: m.session, Operation: m.op, Inodes: inodes}
		if _, err := m.log.AppendChanges(context.WithoutCancel(ctx), []Change{c}); err != nil && !errors.Is(err, ErrNoMigration) {
			slog.Warn("record the end of a change for the migration in progress", "operation", m.op, "err", err)
		}
	}
	t.mu.Lock()
	t.inflight--
	if !m.tracked {
		t.untrack--
	}
	t.changed.Broadcast()
	t.mu.Unlock()
}
