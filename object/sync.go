package object

import (
	"context"
	"fmt"

	"golang.org/x/sys/unix"
)

// Syncer is implemented by stores whose Put may return before the object
// is durable. Sync returns once every object whose Put returned before
// Sync was called is durable. Callers that need durability (a slice about
// to be committed, a staged block about to be deleted) call it when the
// store implements it.
type Syncer interface {
	Sync(ctx context.Context) error
}

// Sync makes the objects put so far durable. With DeferSync it flushes the
// whole file system holding the directory once (syncfs), which costs far
// less than a flush per object; without, Put has already done so.
func (f *File) Sync(ctx context.Context) error {
	if !f.deferSync {
		return nil
	}
	fd, err := unix.Open(f.root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("sync %s: %w", f.root, err)
	}
	defer unix.Close(fd)
	if err := unix.Syncfs(fd); err != nil {
		return fmt.Errorf("sync %s: %w", f.root, err)
	}
	return nil
}

// Sync passes on to the wrapped store; it is not retried (a failed flush
// may have lost data, trying again cannot tell).
func (r *retrying) Sync(ctx context.Context) error {
	if s, ok := r.Store.(Syncer); ok {
		return s.Sync(ctx)
	}
	return nil
}
