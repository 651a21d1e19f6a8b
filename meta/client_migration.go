package meta

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// How a Client follows an online migration (package migrate holds the
// protocol; migration.go the record and the acknowledgements). Start
// reads the migration record once before the client's first mutation,
// then a goroutine reads it every Heartbeat, and every MigrationPoll
// while one exists, and moves the client's Tracker along the record's
// phases:
//
//   - tracking: Track, then the MigrationAckTracking acknowledgement
//     (and MigrationAckFromStart when Start saw the record);
//   - pausing: Pause (reads go on; Pause returns once no mutation is in
//     flight and their post-marks are appended), then MigrationAckPaused;
//   - switched: open DST (ClientConfig.OpenEngine), MigrationAckSwitched
//     on SRC, a session on DST with the same SessionInfo, the orphans and
//     locks of this client's session taken again there, the engine
//     swapped under the Client (caches stay: inode numbers are the
//     same), Resume, and SRC closed once the reads that went to it
//     have returned. SRC's session is left as it is:
//     closing it would release its orphans into SRC's dead-slice queue,
//     whose blocks the copies on DST still use.
//
// A record whose deadline passed before "switched" is dropped and the
// client goes on on SRC. Once "switched" is read, the client never
// resumes on SRC (writes there would be lost): while DST cannot be opened
// it stays paused and retries, and once the record's deadline has passed
// its mutations fail with EIO instead of waiting (reads go on from SRC,
// which no longer changes).

// follower is the state of the migration a Client follows; only the
// following goroutine uses it.
type follower struct {
	id        string // the record's ID; "" for none
	acked     int    // the last acknowledgement appended
	paused    bool
	fromStart bool // the client's start: no mutation of it ran yet
}

// followMigrations runs until stop closes, from the state f of the
// step Start took.
func (c *Client) followMigrations(stop, done chan struct{}, f follower) {
	defer close(done)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-stop
		cancel()
	}()
	wait := time.NewTimer(MigrationPoll)
	defer wait.Stop()
	for {
		select {
		case <-stop:
			if f.paused {
				// Close's own calls would wait for a switch nobody
				// follows any more.
				c.tracker.Refuse(errors.New("the client closed while a migration paused it"))
			}
			return
		case <-wait.C:
		case <-c.followNow:
			wait.Stop()
		}
		next := c.cfg.Heartbeat
		if c.followStep(ctx, &f) {
			next = min(next, MigrationPoll)
		}
		wait.Reset(next)
	}
}

// followStep reads the record once and does what its phase asks; it
// reports whether a migration is under way.
func (c *Client) followStep(ctx context.Context, f *follower) bool {
	if c.cfg.OpenEngine == nil {
		return false // cannot follow: never acknowledge
	}
	log, ok := Capability[ChangeLog](c.tracker.Unwrap())
	if !ok {
		return false
	}
	b, err := log.Migration(ctx)
	if err != nil {
		slog.Warn("read the migration record", "err", err)
		return f.id != ""
	}
	if b == nil {
		if f.id != "" {
			slog.Info("the migration ended without moving the volume", "migration", f.id)
			c.leaveMigration(f)
		}
		return false
	}
	r, err := DecodeMigration(b)
	if err != nil {
		slog.Warn("read the migration record", "err", err)
		return true
	}
	if r.ID != f.id {
		if f.id != "" {
			c.leaveMigration(f)
		}
		f.id = r.ID
	}
	if r.Stopped(time.Now()) {
		if err := log.SwapMigration(ctx, b, nil); err != nil && !errors.Is(err, ErrConflict) {
			slog.Warn("drop a migration whose deadline passed", "migration", r.ID, "err", err)
			return true
		}
		slog.Warn("a migration's migrator stopped (its deadline passed): the volume stays where it is", "migration", r.ID, "destination", r.Destination)
		c.leaveMigration(f)
		return false
	}
	if r.Phase != MigrationSwitched && f.acked < MigrationAckTracking && !c.startTracking(ctx, f, log, r) {
		return true
	}
	switch r.Phase {
	case MigrationPausing:
		if f.acked < MigrationAckPaused {
			c.pause(ctx, f, log, r)
		}
	case MigrationSwitched:
		c.switchEngine(ctx, f, log, r)
	}
	return true
}

// startTracking tracks into log and acknowledges it.
func (c *Client) startTracking(ctx context.Context, f *follower, log ChangeLog, r MigrationRecord) bool {
	until, cancel := context.WithDeadline(ctx, r.Deadline)
	defer cancel()
	if err := c.tracker.Track(until, log, c.Session()); err != nil {
		slog.Warn("wait for the mutations started before tracking", "migration", r.ID, "err", err)
		return false
	}
	acks := []uint64{MigrationAckTracking}
	if f.fromStart {
		acks = append(acks, MigrationAckFromStart)
	}
	if err := c.acknowledge(ctx, log, acks...); err != nil {
		slog.Warn("acknowledge a migration", "migration", r.ID, "err", err)
		return false
	}
	f.acked = MigrationAckTracking
	slog.Info("tracking changes for a migration", "migration", r.ID, "destination", r.Destination)
	return true
}

// pause holds mutations and acknowledges it.
func (c *Client) pause(ctx context.Context, f *follower, log ChangeLog, r MigrationRecord) {
	until, cancel := context.WithDeadline(ctx, r.Deadline)
	defer cancel()
	if err := c.tracker.Pause(until); err != nil {
		slog.Warn("pause for a migration", "migration", r.ID, "err", err)
		return
	}
	f.paused = true
	if err := c.settleFlushes(until); err != nil {
		slog.Warn("write the statistics in doubt before a migration's switch", "migration", r.ID, "err", err)
		return // paused, not acknowledged: the next step tries again
	}
	if err := c.acknowledge(ctx, log, MigrationAckPaused); err != nil {
		slog.Warn("acknowledge the pause of a migration", "migration", r.ID, "err", err)
		return
	}
	f.acked = MigrationAckPaused
}

// settleFlushes writes the statistics and quota usage batches whose
// write failed (in doubt: maybe applied) to the engine the pause holds,
// with their marks, before the client acknowledges a migration's pause:
// the switch copies SRC's statistics to DST but not the marks' records,
// so a batch still in doubt, sent again to DST after the switch, would
// count twice there. Flushes are refused while paused (errFlushPaused),
// so none holds its batch meanwhile; sums not sent yet go to DST.
func (c *Client) settleFlushes(ctx context.Context) error {
	if !c.stats.on() {
		return nil
	}
	src := c.tracker.Unwrap()
	if s, ok := Capability[DirStatStore](src); ok {
		if err := c.stats.settle(ctx, s); err != nil {
			return fmt.Errorf("directory statistics: %w", err)
		}
	}
	if q, ok := Capability[QuotaStore](src); ok && c.quota.store != nil {
		if err := c.settleQuotas(ctx, q); err != nil {
			return fmt.Errorf("quota usage: %w", err)
		}
	}
	return nil
}

// acknowledge appends the acknowledgements acks of this client's
// session.
func (c *Client) acknowledge(ctx context.Context, log ChangeLog, acks ...uint64) error {
	changes := make([]Change, len(acks))
	for i, ack := range acks {
		changes[i] = Change{Kind: ChangeAck, Session: c.Session(), Operation: ack}
	}
	_, err := log.AppendChanges(ctx, changes)
	return err
}

// leaveMigration stops following f's migration on the engine the client
// is on.
func (c *Client) leaveMigration(f *follower) {
	c.tracker.StopTracking()
	if f.paused {
		c.tracker.Resume()
	}
	*f = follower{}
}

// switchEngine moves the client to the engine the record names; on a
// failure it stays paused, and the next step tries again.
func (c *Client) switchEngine(ctx context.Context, f *follower, log ChangeLog, r MigrationRecord) {
	if !f.paused {
		// The migrator switched without this client's pause (it cannot,
		// unless the client joined late): hold mutations before anything.
		if err := c.tracker.Pause(ctx); err != nil {
			return
		}
		f.paused = true
	}
	dst, err := c.openDestination(ctx, r.Destination)
	if err != nil {
		slog.Warn("the volume moved to another metadata engine, which this client cannot reach yet: mutations wait", "destination", r.Destination, "err", err)
		if time.Now().After(r.Deadline) {
			c.tracker.Refuse(fmt.Errorf("reach %s, where the volume moved: %w", r.Destination, err))
		}
		return
	}
	if err := c.acknowledge(ctx, log, MigrationAckSwitched); err != nil {
		slog.Warn("acknowledge the switch of a migration", "migration", r.ID, "err", err)
	}
	from := c.Session()
	sid, err := dst.NewSession(ctx, c.info)
	if err != nil {
		dst.Close()
		slog.Warn("register the session on the engine the volume moved to", "destination", r.Destination, "err", err)
		return
	}
	src := c.tracker.Unwrap()
	c.registerOrphans(ctx, src, dst, sid)
	c.registerLocks(ctx, dst, sid)
	if _, err := c.tracker.SwapSession(sessionRecorder{dst, c}, from, sid); err != nil {
		panic(err) // only this goroutine pauses and resumes the tracker
	}
	c.mu.Lock()
	c.sid = sid
	c.mu.Unlock()
	c.followed.Store(true)
	c.tracker.StopTracking()
	c.tracker.Resume()
	*f = follower{}
	if err := c.tracker.CloseReplaced(); err != nil {
		slog.Warn("close the engine the volume moved from", "err", err)
	}
	slog.Info("followed the volume to another metadata engine", "migration", r.ID, "destination", r.Destination, "session", sid)
}

// openDestination opens the engine at url and checks that it holds this
// volume.
func (c *Client) openDestination(ctx context.Context, url string) (Engine, error) {
	dst, err := c.cfg.OpenEngine(ctx, url)
	if err != nil {
		return nil, err
	}
	if ch, ok := dst.(checked); ok {
		dst = ch.Engine // checked once, above the Tracker
	}
	want, err := c.tracker.Unwrap().Load(ctx)
	if err != nil {
		dst.Close()
		return nil, fmt.Errorf("read the volume's settings: %w", err)
	}
	got, err := dst.Load(ctx)
	if err == nil && got.UUID != want.UUID {
		err = fmt.Errorf("it holds volume %q (%s), not %q (%s)", got.Name, got.UUID, want.Name, want.UUID)
	}
	if err != nil {
		dst.Close()
		return nil, fmt.Errorf("check the volume at %s: %w", url, err)
	}
	return dst, nil
}

// FollowNow makes the client read the migration record at once instead
// of at its next heartbeat: a migration run in the client's own process
// (package control) has it start tracking without waiting up to a
// Heartbeat.
func (c *Client) FollowNow() {
	select {
	case c.followNow <- struct{}{}:
	default: // a read is due already
	}
}

// Followed reports whether the client moved to the engine an online
// migration switched its volume to; the engine it was started on is then
// closed, and Current is the one it works on.
func (c *Client) Followed() bool { return c.followed.Load() }

// Current is the engine the client's calls reach now, beneath the
// client's own wrappers: the one it was started on, or the one a
// migration moved it to.
func (c *Client) Current() Engine { return c.tracker.Unwrap() }
