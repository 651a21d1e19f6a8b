package migrate

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"cairn/meta"
)

// Options tune Run; zero values take the defaults.
type Options struct {
	// AckTimeout is how long Run waits for every live session to
	// acknowledge tracking (default 1 minute: a client reads the record
	// on its heartbeat, every 10 seconds, and first lets the mutations it
	// started untracked return); a session that has not by then is named
	// and the migration refused. It is also how long Run waits, after the
	// switch, for sessions to say they follow.
	AckTimeout time.Duration
	// PauseTimeout is how long Run waits for every live session to pause
	// (default 10 seconds). Applications on the mounts that did pause wait
	// meanwhile, so it is short; past it the migration ends with the
	// volume on SRC (see Run).
	PauseTimeout time.Duration
	// Lease is how far ahead the record's deadline is pushed, every third
	// of it (default 30 seconds): a migrator that dies leaves clients
	// tracking, or paused, for at most that long.
	Lease time.Duration
	// SessionTimeout is how long a session may be silent and still count
	// as live (default 5 minutes, as the clients' own: a session silent
	// longer is closed by any client, and its mount writes nothing).
	SessionTimeout time.Duration
	// RoundTarget ends the catch-up once a round copies fewer inodes
	// (default 2000); MaxRounds ends it anyway (default 10), when the
	// writers change more inodes than a round copies.
	RoundTarget int
	MaxRounds   int
	// AckPoll is how often Run reads the acknowledgements while it waits
	// for them (default 100 ms). A migration run inside a mount's process
	// polls faster: its SRC is the mount's own connection, and the pause
	// the mount's applications wait includes this poll.
	AckPoll time.Duration
	// Progress, when not nil, hears how the migration goes.
	Progress func(Event)
}

func (o *Options) defaults() {
	if o.AckTimeout <= 0 {
		o.AckTimeout = time.Minute
	}
	if o.PauseTimeout <= 0 {
		o.PauseTimeout = 10 * time.Second
	}
	if o.Lease <= 0 {
		o.Lease = 30 * time.Second
	}
	if o.SessionTimeout <= 0 {
		o.SessionTimeout = 5 * time.Minute
	}
	if o.RoundTarget <= 0 {
		o.RoundTarget = 2000
	}
	if o.MaxRounds <= 0 {
		o.MaxRounds = 10
	}
	if o.AckPoll <= 0 {
		o.AckPoll = ackPoll
	}
	if o.Progress == nil {
		o.Progress = func(Event) {}
	}
}

// Stage is a step of a migration, as Progress reports it.
type Stage int

// The stages, in order.
const (
	StageAnnounce Stage = iota + 1
	StageBulkCopy
	StageCatchUp
	StagePause
	StageSwitch
)

// Event is what Progress hears:
//   - StageAnnounce, once every live session tracks: Sessions; Emptied
//     when DST held an earlier attempt's copy, now removed;
//   - StageBulkCopy, from time to time: Records copied so far, and once
//     with Done;
//   - StageCatchUp, after each round: Round and the Inodes it copied;
//   - StagePause, once every session paused: Pause so far;
//   - StageSwitch, once SRC is marked moved: the Inodes copied while
//     paused, the whole Pause, the Sessions that said they follow DST,
//     and Missing, those that did not yet within AckTimeout.
type Event struct {
	Stage    Stage
	Records  uint64
	Done     bool
	Round    int
	Inodes   int
	Pause    time.Duration
	Sessions []meta.SessionInfo
	Missing  []meta.SessionInfo
	Emptied  bool
}

// Run moves the volume in src to dst while clients use it, following the
// protocol of the package documentation. sourceURL and destinationURL
// are the two URLs without their passwords: the record tells clients
// where to go, and the copy in dst remembers where it came from.
//
// Before the switch, any failure or ctx's end removes the record (clients
// stop tracking and go on with SRC) and leaves dst as it is; a rerun
// empties that copy and starts over. A refusal before anything was
// written (ErrNotEmpty, ErrSameVolume, ErrRunning, a moved or unformatted
// SRC, a *NotAcknowledgedError) changes nothing but the record it
// removes. A session that does not pause within PauseTimeout ends the
// migration in the same way, rather than going back to tracking to try
// again: every other mount's applications have already waited that long,
// and a session stuck in an engine call is likely to be stuck again.
func Run(ctx context.Context, src, dst meta.Engine, sourceURL, destinationURL string, opts Options) (err error) {
	opts.defaults()
	if sourceURL == destinationURL {
		return fmt.Errorf("%w: both URLs are %s", ErrSameVolume, sourceURL)
	}
	format, err := src.Load(ctx)
	if err != nil {
		return fmt.Errorf("read the source volume: %w", err)
	}
	if err := meta.CheckMoved(ctx, src); err != nil {
		return err
	}
	log, ok := meta.Capability[meta.ChangeLog](src)
	if !ok {
		return fmt.Errorf("the %s engine keeps no change log, so its volume cannot move while mounted", src.Name())
	}
	if _, ok := meta.Capability[meta.InodeReplacer](dst); !ok {
		return fmt.Errorf("the %s engine cannot take a volume in while it is mounted (no inode replacement)", dst.Name())
	}
	earlier, err := leftover(ctx, dst, format, sourceURL)
	if err != nil {
		return err
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	record := meta.MigrationRecord{ID: newID(), Destination: destinationURL, Phase: meta.MigrationTracking}
	lease, err := announce(ctx, log, record, opts.Lease, cancel)
	if err != nil {
		return err
	}
	switched := false
	defer func() {
		lease.close()
		if switched {
			return
		}
		// Before "switched" the volume is SRC's: end the migration there,
		// also when ctx ended (an interrupt), and leave DST as it is.
		cleanup, stop := context.WithTimeout(context.WithoutCancel(ctx), opts.Lease)
		defer stop()
		if rerr := lease.remove(cleanup); rerr != nil {
			err = fmt.Errorf("%w (and %v: clients drop the record by themselves once its deadline passes)", err, rerr)
		}
		if cause := context.Cause(ctx); errors.Is(cause, errLeaseLost) {
			err = fmt.Errorf("%w: %w", err, cause)
		}
	}()

	tracked := newAcks(log, 0)
	sessions, err := waitAcks(ctx, src, tracked, meta.MigrationAckTracking, opts.AckTimeout, opts.SessionTimeout, opts.AckPoll)
	if err != nil {
		return err
	}
	if earlier {
		if err := empty(ctx, dst, opts.SessionTimeout); err != nil {
			return err
		}
	}
	opts.Progress(Event{Stage: StageAnnounce, Sessions: sessions, Emptied: earlier})

	position, err := log.ChangesEnd(ctx)
	if err != nil {
		return fmt.Errorf("read the end of the change log: %w", err)
	}
	bulkStart := position
	mark := func(h *meta.DumpHeader) { h.Format.CopyOf, h.Format.CopyID = sourceURL, record.ID }
	err = bulkCopy(ctx, src, dst, mark, func(n uint64) { opts.Progress(Event{Stage: StageBulkCopy, Records: n}) })
	if err != nil {
		return err
	}
	opts.Progress(Event{Stage: StageBulkCopy, Done: true})

	for round := 1; ; round++ {
		var copied int
		position, copied, err = CatchUpRound(ctx, src, dst, log, position)
		if err != nil {
			return err
		}
		opts.Progress(Event{Stage: StageCatchUp, Round: round, Inodes: copied})
		if copied < opts.RoundTarget || round >= opts.MaxRounds {
			break
		}
	}

	// The acknowledgements so far, read outside the pause (which reads
	// only what comes after).
	if err := tracked.read(ctx); err != nil {
		return err
	}
	return runSwitch(ctx, src, dst, log, lease, position, tracked, bulkStart, opts, &switched)
}

// runSwitch pauses every session, finishes the copy, marks SRC moved and
// waits (up to AckTimeout) for the sessions to say they follow.
func runSwitch(ctx context.Context, src, dst meta.Engine, log meta.ChangeLog, lease *lease, position uint64, tracked *acks, bulkStart uint64, opts Options, switched *bool) error {
	before, err := log.ChangesEnd(ctx)
	if err != nil {
		return fmt.Errorf("read the end of the change log: %w", err)
	}
	started := time.Now()
	if err := lease.setPhase(ctx, meta.MigrationPausing); err != nil {
		return fmt.Errorf("pause the clients: %w", err)
	}
	paused, err := waitAcks(ctx, src, newAcks(log, before), meta.MigrationAckPaused, opts.PauseTimeout, opts.SessionTimeout, opts.AckPoll)
	if err != nil {
		return err
	}
	if err := tracked.read(ctx); err != nil {
		return err
	}
	if joined := lateSessions(paused, tracked, bulkStart); len(joined) > 0 {
		return &LateSessionError{Sessions: joined}
	}
	opts.Progress(Event{Stage: StagePause, Pause: time.Since(started), Sessions: paused})
	end, err := log.ChangesEnd(ctx)
	if err != nil {
		return fmt.Errorf("read the end of the change log: %w", err)
	}
	copied, err := Finish(ctx, src, dst, log, position, func(ctx context.Context) error {
		if err := lease.setPhase(ctx, meta.MigrationSwitched); err != nil {
			return err
		}
		*switched = true
		return nil
	})
	if err != nil {
		return err
	}
	pause := time.Since(started)

	// The volume lives on DST now; the sessions say they follow.
	followers := newAcks(log, end)
	var followed, missing []meta.SessionInfo
	give := time.Now().Add(opts.AckTimeout)
	for {
		if err := followers.read(ctx); err != nil {
			return fmt.Errorf("%w, but: %w", ErrSwitched, err)
		}
		followed, missing = nil, nil
		for _, s := range paused {
			if followers.seen[meta.MigrationAckSwitched][s.ID] != 0 {
				followed = append(followed, s)
			} else {
				missing = append(missing, s)
			}
		}
		if len(missing) == 0 || time.Now().After(give) || ctx.Err() != nil {
			break
		}
		time.Sleep(opts.AckPoll)
	}
	opts.Progress(Event{Stage: StageSwitch, Inodes: copied, Pause: pause, Sessions: followed, Missing: missing})
	return nil
}

// newID is a new attempt's id: random, so that no two attempts share it.
func newID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}
