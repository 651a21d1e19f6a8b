package meta

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Tracker is the engine wrapper a client runs behind during an online
// migration (package migrate describes the protocol). It does three
// things, each only when asked:
//
//   - Tracking: while a change log is set (Track), every mutation first
//     appends a pre-mark (ChangeBefore) naming the inodes it may change
//     that are known beforehand, runs, and then queues a post-mark
//     (ChangeAfter) naming those and the inodes the call reported;
//     queued post-marks are appended together within postMarkDelay, and
//     all of them before Pause returns. A mutation whose pre-mark cannot
//     be appended fails with ErrIO (wrapping the cause) and does not
//     run: an untracked change would be lost by the migration. ErrNoMigration (the migration ended) stops tracking and
//     the mutation runs. A post-mark that cannot be appended is logged:
//     the pre-mark stands for it, and the switch copies its inodes.
//   - Pausing: Pause makes new mutations wait and returns once those in
//     flight have returned (with their post-marks); Resume lets them go.
//     Reads are never held. Refuse makes held mutations fail with ErrIO
//     instead of waiting.
//   - Swapping: Swap, while paused, replaces the engine every later call
//     goes to; SwapSession also renames the session the client had on
//     the old engine, so that a call that read the old id before the
//     pause held it reaches the new engine with the new one.
//
// Sessions, locks and id reservations are held by a pause but not marked:
// they are a client's own state, which it registers again on the engine it
// moves to. The optional interfaces a mount uses to change the tree —
// UnlinkDeleter, BatchRemover, Cloner — are tracked, and the directory
// statistics and quotas (DirStatStore, QuotaStore) held by a pause (an
// engine without them answers ErrNotSupported through the Tracker, so a
// Client looks for them beneath it); Unwrap gives the
// current engine for the read-only ones (Describer, Dumper's Dump, ...).
// Any other mutating interface reached through Unwrap bypasses tracking
// and must not be used on a mount's engine.
//
// While neither tracking nor paused, a call costs two atomic additions
// and two atomic loads: no lock, no allocation.
type Tracker struct {
	current atomic.Pointer[trackedEngine]
	// watched is set while tracking or paused: calls take the slow path
	// under mu. Otherwise a call only counts itself in fast, with no lock
	// and no allocation (the cost of a Tracker when no migration runs).
	watched atomic.Bool
	fast    atomic.Int64 // calls in flight that took the fast path

	replaced *trackedEngine // what the last Swap replaced, until CloseReplaced

	mu       sync.Mutex
	changed  *sync.Cond // a mutation ended, or the pause was lifted
	paused   bool
	refusal  error     // while paused: held mutations fail with it instead of waiting
	inflight int       // calls in flight that took the slow path
	log      ChangeLog // nil when not tracking
	session  uint64
	untrack  int // slow-path mutations in flight that started untracked
	op       uint64

	marks postMarks
}

// NewTracker wraps e; it neither tracks nor pauses until told.
func NewTracker(e Engine) *Tracker {
	t := &Tracker{}
	t.changed = sync.NewCond(&t.mu)
	t.current.Store(&trackedEngine{engine: e})
	return t
}

// trackedEngine is the engine calls go to, and the session renamed when
// it replaced another.
type trackedEngine struct {
	engine   Engine
	from, to uint64
	reads    atomic.Int64 // reads in flight (read), which its Close waits for
	holding  holds        // Hold's holders, which close it instead of CloseReplaced
}

// read returns the engine a read goes to, counted there until done: an
// engine a Swap replaced is closed (CloseReplaced) only once the reads
// that reached it have returned, not under them. Counting before looking
// again means that CloseReplaced, which looks at the count after the
// swap, sees every read that went on with the old engine.
func (t *Tracker) read() *trackedEngine {
	for {
		e := t.current.Load()
		e.reads.Add(1)
		if t.current.Load() == e {
			return e
		}
		e.done()
	}
}

// done ends a read that read counted.
func (e *trackedEngine) done() { e.reads.Add(-1) }

// session is sid as the engine knows it.
func (e *trackedEngine) session(sid uint64) uint64 {
	if sid == e.from && e.from != 0 {
		return e.to
	}
	return sid
}

// owner is o as the engine knows it.
func (e *trackedEngine) owner(o LockOwner) LockOwner {
	o.Session = e.session(o.Session)
	return o
}

// Unwrap returns the engine calls currently go to.
func (t *Tracker) Unwrap() Engine { return t.current.Load().engine }

// watchLocked sets watched from the state, with t.mu held.
func (t *Tracker) watchLocked() { t.watched.Store(t.log != nil || t.paused) }

// Track starts tracking mutations into log as session sid, and returns
// once every mutation that started untracked has returned: from then on,
// every mutation that has not returned is tracked (what the client's
// acknowledgement promises). With ctx's error it keeps tracking.
func (t *Tracker) Track(ctx context.Context, log ChangeLog, sid uint64) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.log, t.session = log, sid
	t.watchLocked()
	return t.waitLocked(ctx, func() bool { return t.untrack == 0 && t.fast.Load() == 0 })
}

// StopTracking ends tracking; mutations in flight finish their marks.
func (t *Tracker) StopTracking() {
	t.mu.Lock()
	t.log = nil
	t.watchLocked()
	t.mu.Unlock()
}

// Tracking reports whether mutations are being tracked.
func (t *Tracker) Tracking() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.log != nil
}

// Pause holds new mutations and returns once none is in flight and the
// post-marks of those that ran are appended. With ctx's error it lifts
// its hold again.
func (t *Tracker) Pause(ctx context.Context) error {
	t.mu.Lock()
	t.paused = true
	t.watchLocked()
	if err := t.waitLocked(ctx, func() bool { return t.inflight == 0 && t.fast.Load() == 0 }); err != nil {
		t.resumeLocked()
		t.mu.Unlock()
		return err
	}
	t.mu.Unlock()
	t.flushMarks(ctx)
	return nil
}

// Refuse makes the mutations a pause holds, and those that come while it
// lasts, fail with ErrIO and err's text instead of waiting; Resume ends
// it. A client that cannot follow a migration uses it once its deadline
// passed, so that applications see a bounded wait and then EIO.
func (t *Tracker) Refuse(err error) {
	t.mu.Lock()
	t.refusal = err
	t.changed.Broadcast()
	t.mu.Unlock()
}

// Resume lets held mutations go.
func (t *Tracker) Resume() {
	t.mu.Lock()
	t.resumeLocked()
	t.mu.Unlock()
}

func (t *Tracker) resumeLocked() {
	t.paused, t.refusal = false, nil
	t.watchLocked()
	t.changed.Broadcast()
}

// Swap replaces the engine, which only a paused Tracker allows, and
// returns the old one, which the caller closes with CloseReplaced (or
// itself, once no read can reach it).
func (t *Tracker) Swap(e Engine) (Engine, error) { return t.SwapSession(e, 0, 0) }

// SwapSession is Swap, and from then on a call naming session from (the
// client's session on the old engine) names session to instead.
func (t *Tracker) SwapSession(e Engine, from, to uint64) (Engine, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.paused || t.inflight != 0 || t.fast.Load() != 0 {
		return nil, errors.New("swap the engine of a tracker that is not paused")
	}
	t.replaced = t.current.Swap(&trackedEngine{engine: e, from: from, to: to})
	return t.replaced.engine, nil
}

// replacedReadsWait bounds how long CloseReplaced waits for reads of the
// old engine: one stuck on an unreachable server fails when it closes.
const replacedReadsWait = 30 * time.Second

// CloseReplaced closes the engine the last Swap replaced, once the reads
// that went to it have returned (or after replacedReadsWait). Mutations
// need no wait: a Swap happens only when none is in flight.
func (t *Tracker) CloseReplaced() error {
	t.mu.Lock()
	old := t.replaced
	t.replaced = nil
	t.mu.Unlock()
	if old == nil {
		return nil
	}
	for start := time.Now(); old.reads.Load() > 0 && time.Since(start) < replacedReadsWait; {
		time.Sleep(time.Millisecond)
	}
	if old.holding.handOver() {
		return nil // the last holder's release closes it
	}
	return old.engine.Close()
}

// waitLocked waits, with t.mu held, until done or ctx ends.
func (t *Tracker) waitLocked(ctx context.Context, done func() bool) error {
	if done() {
		return nil
	}
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

// waitResumed waits until no pause holds mutations: nil once none does;
// ErrIO, with the refusal, while a pause refuses them (Refuse); ctx's
// error when it ends first. A flush refused while paused (errFlushPaused)
// waits here before it tries again.
func (t *Tracker) waitResumed(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.waitResumedLocked(ctx)
}

// waitResumedLocked is waitResumed with t.mu held.
func (t *Tracker) waitResumedLocked(ctx context.Context) error {
	if err := t.waitLocked(ctx, func() bool { return !t.paused || t.refusal != nil }); err != nil {
		return err
	}
	if t.paused {
		return fmt.Errorf("%w: the volume is moving to another metadata engine: %w", ErrIO, t.refusal)
	}
	return nil
}

// mutation is one call in flight. It is passed by value: the fast path
// allocates nothing.
type mutation struct {
	engine  Engine
	current *trackedEngine
	log     ChangeLog
	session uint64
	op      uint64
	inodes  []Ino
	fast    bool // counted in Tracker.fast
	tracked bool // counted as tracked (else in Tracker.untrack)
}

// begin waits out a pause, counts the call in flight and, when tracking,
// appends its pre-mark naming inodes.
func (t *Tracker) begin(ctx context.Context, inodes ...Ino) (mutation, error) {
	return t.enter(ctx, entryMarked, inodes)
}

// entry is how a call enters the Tracker.
type entry uint8

const (
	entryMarked entry = iota // held by a pause; marked in the change log while tracking
	entryHeld                // held by a pause, never marked; Track does not wait for it
	entryFlush               // as entryHeld, but refused at once while paused (errFlushPaused)
)

// errFlushPaused refuses a flush of statistics or quota usage while a
// migration's pause holds mutations, rather than have it wait: a client
// writes its batches still in doubt itself before it acknowledges the
// pause (Client.settleFlushes), which it could not while its flush waited
// holding them.
var errFlushPaused = errors.New("a migration's pause holds the statistics until its switch")

// enter is begin for a call that enters as how.
func (t *Tracker) enter(ctx context.Context, how entry, inodes []Ino) (mutation, error) {
	t.fast.Add(1)
	if !t.watched.Load() {
		// Track and Pause set watched before they read fast, and this
		// call added to fast before it read watched: one of the two sees
		// the other.
		current := t.current.Load()
		return mutation{engine: current.engine, current: current, fast: true, tracked: true}, nil
	}
	t.leaveFast()
	return t.enterWatched(ctx, how, inodes)
}

// leaveFast uncounts a fast-path call, and wakes a Track or Pause that
// waits for the fast path to drain.
func (t *Tracker) leaveFast() {
	if t.fast.Add(-1) == 0 && t.watched.Load() {
		t.mu.Lock()
		t.changed.Broadcast()
		t.mu.Unlock()
	}
}

// enterWatched is enter while tracking or paused.
func (t *Tracker) enterWatched(ctx context.Context, how entry, inodes []Ino) (mutation, error) {
	mark := how == entryMarked
	t.mu.Lock()
	if how == entryFlush && t.paused {
		t.mu.Unlock()
		return mutation{}, errFlushPaused
	}
	if err := t.waitResumedLocked(ctx); err != nil {
		t.mu.Unlock()
		return mutation{}, err
	}
	t.inflight++
	current := t.current.Load()
	m := mutation{engine: current.engine, current: current, log: t.log, session: t.session, tracked: t.log != nil || !mark}
	if !mark {
		m.log = nil
	}
	if !m.tracked {
		t.untrack++
	} else if m.log != nil {
		t.op++
		m.op = t.op
		m.inodes = append([]Ino(nil), inodes...) // the caller's array stays on its stack
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
			t.watchLocked()
		}
		t.mu.Unlock()
		m.log = nil
		err = nil
	}
	if err != nil {
		m.log = nil // the call does not run: no post-mark
		t.end(ctx, m)
		return mutation{}, fmt.Errorf("%w: record the change for the migration in progress: %w", ErrIO, err)
	}
	return m, nil
}

// end queues the post-mark naming the call's inodes and those it
// reported (0 for none), and ends the call.
func (t *Tracker) end(ctx context.Context, m mutation, reported ...Ino) {
	if m.fast {
		t.leaveFast()
		return
	}
	t.mu.Lock()
	if m.log != nil {
		inodes := m.inodes
		for _, ino := range reported {
			if ino != 0 {
				inodes = append(inodes, ino)
			}
		}
		t.queueMarkLocked(m.log, Change{Kind: ChangeAfter, Session: m.session, Operation: m.op, Inodes: inodes})
	}
	t.inflight--
	if !m.tracked {
		t.untrack--
	}
	t.changed.Broadcast()
	t.mu.Unlock()
}
