package migrate

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"cairn/meta"
)

// ackPoll is how often the migrator looks for acknowledgements by
// default (Options.AckPoll); clients poll the record faster while a
// migration exists.
const ackPoll = 100 * time.Millisecond

// acks reads a change log forward from a position and remembers which
// session acknowledged which phase (a ChangeAck's Operation).
type acks struct {
	log   meta.ChangeLog
	after uint64
	seen  map[uint64]map[uint64]uint64 // acknowledgement → session → its number in the log
}

func newAcks(log meta.ChangeLog, after uint64) *acks {
	return &acks{log: log, after: after, seen: map[uint64]map[uint64]uint64{}}
}

// read takes in what was appended since the last read.
func (a *acks) read(ctx context.Context) error {
	return a.readUntil(ctx, math.MaxUint64)
}

// readUntil takes in what was appended since the last read, up to the
// change numbered end.
func (a *acks) readUntil(ctx context.Context, end uint64) error {
	for a.after < end {
		changes, err := a.log.Changes(ctx, a.after, 1000)
		if err != nil {
			return fmt.Errorf("read the change log: %w", err)
		}
		for _, c := range changes {
			if c.Seq > end {
				return nil
			}
			if c.Kind == meta.ChangeAck {
				if a.seen[c.Operation] == nil {
					a.seen[c.Operation] = map[uint64]uint64{}
				}
				if a.seen[c.Operation][c.Session] == 0 {
					a.seen[c.Operation][c.Session] = c.Seq
				}
			}
			a.after = c.Seq
		}
		if len(changes) < 1000 {
			return nil
		}
	}
	return nil
}

// liveSessions are src's sessions whose heartbeat is newer than timeout:
// those that may still change the volume.
func liveSessions(ctx context.Context, src meta.Engine, timeout time.Duration) ([]meta.SessionInfo, error) {
	all, err := src.ListSessions(ctx)
	if err != nil {
		return nil, fmt.Errorf("list the sessions: %w", err)
	}
	since := time.Now().Add(-timeout)
	var live []meta.SessionInfo
	for _, s := range all {
		if s.Heartbeat.After(since) {
			live = append(live, s)
		}
	}
	return live, nil
}

// waitAcks waits until every live session of src has acknowledged ack,
// and returns them; after limit it returns a *NotAcknowledgedError
// naming those that did not.
func waitAcks(ctx context.Context, src meta.Engine, a *acks, ack uint64, limit, sessionTimeout, poll time.Duration) ([]meta.SessionInfo, error) {
	give := time.Now().Add(limit)
	for {
		if err := a.read(ctx); err != nil {
			return nil, err
		}
		live, err := liveSessions(ctx, src, sessionTimeout)
		if err != nil {
			return nil, err
		}
		var missing []meta.SessionInfo
		for _, s := range live {
			if a.seen[ack][s.ID] == 0 {
				missing = append(missing, s)
			}
		}
		if len(missing) == 0 {
			return live, nil
		}
		if time.Now().After(give) {
			return nil, &NotAcknowledgedError{Sessions: missing, Limit: limit, Ack: ack}
		}
		select {
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		case <-time.After(poll):
		}
	}
}

// NotAcknowledgedError is a migration refused because live sessions did
// not acknowledge a phase in time: mounts of a cairn that predates
// migrations, or mounts that are stuck.
type NotAcknowledgedError struct {
	Sessions []meta.SessionInfo
	Limit    time.Duration
	Ack      uint64
}

func (e *NotAcknowledgedError) Error() string {
	what := "the migration"
	if e.Ack == meta.MigrationAckPaused {
		what = "the pause"
	}
	names := make([]string, 0, len(e.Sessions))
	for _, s := range e.Sessions {
		names = append(names, describeSession(s))
	}
	slices.Sort(names)
	return fmt.Sprintf("%d mount(s) did not acknowledge %s within %v (a cairn older than 'cairn migrate', or a stuck mount): %s; upgrade or unmount them and run again",
		len(e.Sessions), what, e.Limit, strings.Join(names, "; "))
}

// describeSession names a session as a user finds it: host, pid, mount
// point and version.
func describeSession(s meta.SessionInfo) string {
	version := s.Version
	if version == "" {
		version = "unknown"
	}
	return fmt.Sprintf("session %d on %s, pid %d, mounted at %s, version %s", s.ID, s.Hostname, s.PID, s.MountPoint, version)
}

// lateSessions are those of sessions that had not acknowledged tracking
// by position, the bulk copy's start (tracked read the log at least that
// far), and did not say they saw the record from their start: mounts
// started during the migration by a cairn that reads the record only
// after its start. Until such a mount read the record it changed the
// volume untracked, maybe after the snapshot: those changes may be in
// neither the copy nor the log, so the migration cannot switch.
func lateSessions(sessions []meta.SessionInfo, tracked *acks, position uint64) []meta.SessionInfo {
	var out []meta.SessionInfo
	for _, s := range sessions {
		if tracked.seen[meta.MigrationAckFromStart][s.ID] != 0 {
			continue // tracked since before its first change
		}
		if seq := tracked.seen[meta.MigrationAckTracking][s.ID]; seq == 0 || seq > position {
			out = append(out, s)
		}
	}
	return out
}

// LateSessionError is a migration ended at the pause because mounts
// started while the volume was being copied.
type LateSessionError struct {
	Sessions []meta.SessionInfo
}

func (e *LateSessionError) Error() string {
	names := make([]string, 0, len(e.Sessions))
	for _, s := range e.Sessions {
		names = append(names, describeSession(s))
	}
	slices.Sort(names)
	return fmt.Sprintf("%d mount(s) started while the volume was being copied, and their first changes may be in neither the copy nor the change log: %s; run the command again (it starts over)",
		len(e.Sessions), strings.Join(names, "; "))
}
