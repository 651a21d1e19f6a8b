package vfs

import (
	"context"

	"cairn/meta"
)

// CollectGarbage removes the blocks of dead slices and drops them from the
// engine's queue, until the queue is empty. It returns how many slices it
// removed. Several clients may run it at once: removing a missing block
// succeeds.
func (v *VFS) CollectGarbage(ctx context.Context) (int, error) {
	return meta.EmptyDeadQueue(ctx, v.client, func(ctx context.Context, d meta.DeadSlice) error {
		return v.store.Remove(ctx, d.ID, d.Size)
	}, 8)
}
