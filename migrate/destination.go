package migrate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"cairn/meta"
)

// Errors of a migration that never started: nothing was changed.
var (
	// ErrNotEmpty: DST holds something that is not a copy left by an
	// earlier attempt of this migration.
	ErrNotEmpty = errors.New("the destination is not empty")
	// ErrSameVolume: DST is SRC, or holds the same volume.
	ErrSameVolume = errors.New("the destination holds the source volume itself")
	// ErrRunning: another migration of SRC is under way.
	ErrRunning = errors.New("another migration of this volume is running")
)

// ErrSwitched wraps a failure after the switch: the volume lives on DST.
var ErrSwitched = errors.New("the volume moved")

// leftover reports whether dst holds a copy that an earlier attempt of a
// migration of source (its settings, and its URL without password) left
// behind, which a rerun may empty; nil when dst holds no volume (Restore
// then checks that it holds nothing at all). Any other volume in dst is
// ErrNotEmpty, or ErrSameVolume when it is source's own volume.
//
// A copy says whose copy it is in its settings (Format.CopyOf, CopyID,
// written by the bulk copy). It stays marked after the switch, but then
// its source is marked moved and no migration of that source starts
// again, so a marked copy of a source that has not moved is always an
// unfinished one.
func leftover(ctx context.Context, dst meta.Engine, source meta.Format, sourceURL string) (bool, error) {
	f, err := dst.Load(ctx)
	switch {
	case errors.Is(err, meta.ErrNotFormatted):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("read the destination: %w", err)
	case f.UUID == source.UUID && f.CopyID != "" && f.CopyOf == sourceURL:
		return true, nil
	case f.UUID == source.UUID && f.CopyID == "":
		return false, fmt.Errorf("%w (volume %q, UUID %s): the same database reached by another URL, or a copy loaded from a dump; migrate needs an empty destination", ErrSameVolume, f.Name, f.UUID)
	}
	return false, fmt.Errorf("%w: it holds volume %q (UUID %s); migrate needs an empty database (a new one, or one emptied by 'cairn destroy')", ErrNotEmpty, f.Name, f.UUID)
}

// empty removes the copy an earlier attempt left in dst, refusing when a
// client uses it (somebody mounted the unfinished copy).
func empty(ctx context.Context, dst meta.Engine, sessionTimeout time.Duration) error {
	destroyer, ok := meta.Capability[meta.Destroyer](dst)
	if !ok {
		return fmt.Errorf("the destination holds the copy of an earlier attempt, and the %s engine cannot remove it: empty it by hand", dst.Name())
	}
	live, err := liveSessions(ctx, dst, sessionTimeout)
	if err != nil {
		return err
	}
	if len(live) > 0 {
		return fmt.Errorf("%w: it holds the copy of an earlier attempt, mounted by %s; unmount it first", ErrNotEmpty, describeSession(live[0]))
	}
	if err := destroyer.Destroy(ctx); err != nil {
		return fmt.Errorf("empty the copy an earlier attempt left in the destination: %w", err)
	}
	return nil
}
