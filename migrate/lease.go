package migrate

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"cairn/meta"
)

// lease is the migration record this migrator wrote in SRC, which it
// keeps alive: a goroutine pushes the record's deadline forward every
// third of the lease, so that clients give up on the migration (drop the
// record, stop tracking, end a pause) at most one lease after the
// migrator stopped. Every change of the record goes through the lease, a
// compare-and-swap against the bytes it last stored: a record changed by
// anybody else (a client that dropped it after its deadline) is lost, and
// the lease cancels the migration's context with errLeaseLost.
type lease struct {
	log    meta.ChangeLog
	length time.Duration

	mu     sync.Mutex
	record meta.MigrationRecord
	stored []byte // nil once removed

	stop chan struct{}
	done chan struct{}
}

// errLeaseLost is the cause of a migration's end when its record was
// changed or removed by somebody else.
var errLeaseLost = errors.New("the migration record was changed by another process (a client gave up waiting for this migrator, or another migration started)")

// announce writes the record (step 1 of the protocol), and keeps it alive
// until close; a lost record cancels the context cancel belongs to.
func announce(ctx context.Context, log meta.ChangeLog, record meta.MigrationRecord, length time.Duration, cancel context.CancelCauseFunc) (*lease, error) {
	record.Deadline = time.Now().Add(length)
	b := meta.EncodeMigration(record)
	err := log.SwapMigration(ctx, nil, b)
	if errors.Is(err, meta.ErrConflict) {
		// A record whose deadline passed is a dead migrator's (clients drop
		// it too): take its place.
		if err = dropExpired(ctx, log); err == nil {
			err = log.SwapMigration(ctx, nil, b)
		}
		if errors.Is(err, meta.ErrConflict) {
			err = ErrRunning
		}
	}
	if err != nil {
		return nil, fmt.Errorf("write the migration record: %w", err)
	}
	l := &lease{log: log, length: length, record: record, stored: b, stop: make(chan struct{}), done: make(chan struct{})}
	go l.keep(cancel)
	return l, nil
}

// keep pushes the deadline forward until close.
func (l *lease) keep(cancel context.CancelCauseFunc) {
	defer close(l.done)
	t := time.NewTicker(l.length / 3)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		ctx, stop := context.WithTimeout(context.Background(), l.length/3)
		err := l.change(ctx, func(r *meta.MigrationRecord) { r.Deadline = time.Now().Add(l.length) })
		stop()
		if errors.Is(err, errLeaseLost) {
			cancel(err)
			return
		}
		// Any other failure (SRC slow or away) is tried again at the next
		// tick; the deadline still holds the clients until then.
	}
}

// change applies edit to the record and stores it in place of the last
// one. errLeaseLost when somebody else changed it.
func (l *lease) change(ctx context.Context, edit func(*meta.MigrationRecord)) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stored == nil {
		return errLeaseLost
	}
	if l.record.Phase == meta.MigrationSwitched {
		return nil // the record stays as the switch wrote it
	}
	next := l.record
	edit(&next)
	if next.Phase != meta.MigrationSwitched {
		next.Deadline = time.Now().Add(l.length)
	}
	b := meta.EncodeMigration(next)
	if err := l.log.SwapMigration(ctx, l.stored, b); err != nil {
		if errors.Is(err, meta.ErrConflict) {
			l.stored = nil
			return errLeaseLost
		}
		return fmt.Errorf("update the migration record: %w", err)
	}
	l.record, l.stored = next, b
	return nil
}

// setPhase moves the migration to phase.
func (l *lease) setPhase(ctx context.Context, phase string) error {
	return l.change(ctx, func(r *meta.MigrationRecord) { r.Phase = phase })
}

// remove ends the migration without a switch: the record goes, with the
// change log, and clients stop tracking.
func (l *lease) remove(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stored == nil {
		return nil
	}
	err := l.log.SwapMigration(ctx, l.stored, nil)
	if err != nil && !errors.Is(err, meta.ErrConflict) {
		return fmt.Errorf("remove the migration record: %w", err)
	}
	l.stored = nil
	return nil
}

// close stops pushing the deadline.
func (l *lease) close() {
	close(l.stop)
	<-l.done
}

// dropExpired removes the record when its deadline has passed and it has
// not switched; ErrRunning when it has not expired.
func dropExpired(ctx context.Context, log meta.ChangeLog) error {
	b, err := log.Migration(ctx)
	if err != nil || b == nil {
		return err
	}
	r, err := meta.DecodeMigration(b)
	if err != nil {
		return err
	}
	if !r.Stopped(time.Now()) {
		return fmt.Errorf("%w (its record holds until %s)", ErrRunning, r.Deadline.Format(time.RFC3339))
	}
	return log.SwapMigration(ctx, b, nil)
}
