package meta

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// OutsideWrite says what a command that writes a volume's database
// directly, not through a mount (quota set, fsck --repair, config...),
// changes. It decides whether a migration's switch carries the change to
// DST: the mounts' changes reach DST through the change log and their
// pause, a command's only through what the switch reads from SRC after
// it.
type OutsideWrite int

const (
	// UsageWrite changes directory statistics and quotas only. The
	// switch reads both whole from SRC, after it set phase
	// MigrationPausing, and copies to DST what differs (package migrate,
	// copyUsage): such a write may run while the migration tracks.
	UsageWrite OutsideWrite = iota + 1
	// VolumeWrite changes anything else as well: settings, inodes,
	// entries, the volume's usage counters. Those reach DST only through
	// the bulk copy and the inodes that the mounts name in the change
	// log, and a write outside a mount is in neither: it may run only
	// while no migration exists.
	VolumeWrite
)

// The errors of WriteOutsideMount, each a line that says what to do.
var (
	// ErrMigrating: a migration under way refused the write before it
	// began; nothing was changed.
	ErrMigrating = errors.New("'cairn migrate' is moving this volume")
	// ErrMovedMeanwhile: the write is on SRC, but a migration may have
	// read SRC before it and carried the volume to DST without it.
	ErrMovedMeanwhile = errors.New("the change may be missing there")
)

// WriteOutsideMount runs write, a change of kind that a command makes to
// e's volume directly rather than through a mount, so that the change
// ends up on the volume its users go on with, or the command says it may
// not have. A migration (see migrate's package comment) copies SRC to
// DST while the mounts go on, and copies at its switch, with the mounts
// paused, what the mounts and the comparison of statistics and quotas
// tell it changed; a command is not paused and logs nothing.
//
// Before write: a migration that may not carry the change refuses it
// with ErrMigrating, naming the destination: one in phase
// MigrationPausing (the switch may be reading SRC now) and, for a
// VolumeWrite, one in any phase. A MigrationSwitched record is ErrMoved,
// as CheckMoved says.
//
// After write (which runs even when write failed: it may have changed
// part): the record is read again. A UsageWrite is carried when the
// record is now absent or in phase MigrationTracking: a switch sets
// MigrationPausing before it reads SRC's statistics and quotas, and this
// read, after the write returned, saw no pausing yet, so any switch to
// come reads SRC after the write; a switch that had already read SRC
// ended without moving the volume (its record would otherwise stay,
// switched), so the change is on the volume's only copy. Which
// migration the record names does not matter for that. A VolumeWrite,
// refused while any record existed, is carried when none exists now: a
// migration that started during the write either ended without moving
// the volume or still has its record. Otherwise the result is
// ErrMovedMeanwhile, naming the destination, with write's own error
// appended when it failed.
//
// A record whose deadline passed before the switch is a migrator that
// stopped: it is removed, as a client does, and counts as none.
func WriteOutsideMount(ctx context.Context, e Engine, kind OutsideWrite, write func() error) error {
	if err := CheckNotMigrating(ctx, e, kind); err != nil {
		return err
	}
	werr := write()
	r, err := liveMigration(ctx, e)
	if err != nil {
		return errors.Join(werr, fmt.Errorf("read the migration record after the change (so whether a migration carried it is unknown): %w", err))
	}
	if carried(r, kind) {
		return werr
	}
	err = fmt.Errorf("'cairn migrate' began moving the volume to %s while this ran: %w; once it has ended, run this again against the URL the volume then lives on", r.Destination, ErrMovedMeanwhile)
	if r.Phase == MigrationSwitched {
		err = fmt.Errorf("the volume moved to %s while this ran: %w; run this again against %s", r.Destination, ErrMovedMeanwhile, r.Destination)
	}
	if werr != nil {
		err = fmt.Errorf("%w (this run also failed: %v)", err, werr)
	}
	return err
}

// CheckNotMigrating is WriteOutsideMount's check before the write, for a
// command that cannot read the record after it (cairn destroy removes
// it).
func CheckNotMigrating(ctx context.Context, e Engine, kind OutsideWrite) error {
	r, err := liveMigration(ctx, e)
	switch {
	case err != nil:
		return fmt.Errorf("read the migration record: %w: nothing was changed", err)
	case carried(r, kind):
		return nil
	case r.Phase == MigrationSwitched:
		return movedError(*r)
	}
	return fmt.Errorf("%w to %s: nothing was changed; run this again once 'cairn migrate' has ended, against the URL the volume then lives on", ErrMigrating, r.Destination)
}

// carried tells whether a change of kind made with record r in SRC
// reaches DST, should r's migration switch (nil: none).
func carried(r *MigrationRecord, kind OutsideWrite) bool {
	return r == nil || (kind == UsageWrite && r.Phase == MigrationTracking)
}

// liveMigration returns e's migration record, nil when there is none (or
// e keeps no change log). A record whose deadline passed before the
// switch is removed and counts as none.
func liveMigration(ctx context.Context, e Engine) (*MigrationRecord, error) {
	log, ok := Capability[ChangeLog](e)
	if !ok {
		return nil, nil
	}
	for try := 1; ; try++ {
		b, r, err := readMigration(ctx, log)
		if err != nil || r == nil {
			return nil, err
		}
		if !r.Stopped(time.Now()) {
			return r, nil
		}
		err = log.SwapMigration(ctx, b, nil)
		if err == nil {
			return nil, nil
		}
		if !errors.Is(err, ErrConflict) || try == 10 {
			return nil, fmt.Errorf("remove a stopped migrator's record: %w", err)
		}
		// The migrator pushed its deadline, or a client removed it: read
		// again (a few times: each conflict is a change of the record).
	}
}
