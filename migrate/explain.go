package migrate

import (
	"errors"
	"fmt"

	"cairn/meta"
)

// Explain says in one line what stopped a migration of the volume at src
// (a URL with its password masked, or a mount point) to dst, and where
// the volume is; interrupted says that the migrator was stopped (Ctrl-C,
// a signal, its command gone).
func Explain(err error, src, dst string, interrupted bool) error {
	switch {
	case errors.Is(err, ErrSwitched):
		return fmt.Errorf("%w; the volume lives on %s now (mounts that did not say they follow do on their next heartbeat, or fail their changes until remounted)", err, dst)
	case errors.Is(err, meta.ErrMoved):
		return fmt.Errorf("the volume at %s: %w", src, err)
	case errors.Is(err, ErrNotEmpty), errors.Is(err, ErrSameVolume):
		return fmt.Errorf("%s: %w; nothing was changed", dst, err)
	case errors.As(err, new(*NotAcknowledgedError)):
		return fmt.Errorf("%w; the volume stays on %s, nothing was copied", err, src)
	case interrupted:
		return fmt.Errorf("interrupted: the volume stays on %s; %s holds an unfinished copy, which running the command again replaces", src, dst)
	}
	return fmt.Errorf("%w; the volume stays on %s (running the command again starts over)", err, src)
}
