package migrate

import (
	"context"
	"sync"
	"testing"
	"time"

	"cairn/meta"
)

// follower is a client's side of the protocol, as a test drives it: it
// polls the migration record and tracks, pauses and swaps its Tracker
// as a mount's client does, acknowledging each phase. On "switched" it
// stays paused until resume, so that a test can compare SRC and DST
// before any write reaches DST.
type follower struct {
	tracker *meta.Tracker
	log     meta.ChangeLog
	sid     uint64
	dst     meta.Engine
	done    chan struct{}
	resume  chan struct{}
	once    sync.Once
}

// release lets a switched follower's mutations go on DST.
func (f *follower) release() { f.once.Do(func() { close(f.resume) }) }

func startFollower(t *testing.T, ctx context.Context, tracker *meta.Tracker, log meta.ChangeLog, sid uint64, dst meta.Engine) *follower {
	f := &follower{tracker: tracker, log: log, sid: sid, dst: dst, done: make(chan struct{}), resume: make(chan struct{})}
	go func() {
		defer close(f.done)
		if err := f.follow(ctx); err != nil && ctx.Err() == nil {
			t.Errorf("follower of session %d: %v", sid, err)
		}
	}()
	t.Cleanup(func() { f.release(); <-f.done })
	return f
}

func (f *follower) ack(ctx context.Context, ack uint64) error {
	_, err := f.log.AppendChanges(ctx, []meta.Change{{Kind: meta.ChangeAck, Session: f.sid, Operation: ack}})
	return err
}

func (f *follower) follow(ctx context.Context) error {
	phase := ""
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(5 * time.Millisecond):
		}
		b, err := f.log.Migration(ctx)
		if err != nil {
			return err
		}
		if b == nil {
			if phase != "" {
				f.tracker.StopTracking()
				f.tracker.Resume()
				phase = ""
			}
			continue
		}
		r, err := meta.DecodeMigration(b)
		if err != nil {
			return err
		}
		if r.Phase == phase {
			continue
		}
		switch r.Phase {
		case meta.MigrationTracking:
			if phase == meta.MigrationPausing {
				f.tracker.Resume()
			} else if err := f.tracker.Track(ctx, f.log, f.sid); err != nil {
				return err
			}
			if err := f.ack(ctx, meta.MigrationAckTracking); err != nil {
				return err
			}
		case meta.MigrationPausing:
			if err := f.tracker.Pause(ctx); err != nil {
				return err
			}
			if err := f.ack(ctx, meta.MigrationAckPaused); err != nil {
				return err
			}
		case meta.MigrationSwitched:
			if err := f.ack(ctx, meta.MigrationAckSwitched); err != nil {
				return err
			}
			if _, err := f.tracker.Swap(f.dst); err != nil {
				return err
			}
			f.tracker.StopTracking()
			select {
			case <-f.resume:
			case <-ctx.Done():
			}
			f.tracker.Resume()
			return nil
		}
		phase = r.Phase
	}
}
