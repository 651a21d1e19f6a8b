package gc

import (
	"context"
	"fmt"

	"cairn/chunk"
	"cairn/meta"
	"cairn/object"
)

// emptyDeadQueue removes the blocks of the slices in the dead-slice queue
// and drops them from it, as clients do in the background (several may
// run at once: deleting a missing object succeeds). It returns how many
// slices left the queue.
func emptyDeadQueue(ctx context.Context, eng meta.Engine, store object.Store, blockSize, workers int) (int64, error) {
	n, err := meta.EmptyDeadQueue(ctx, eng, func(ctx context.Context, d meta.DeadSlice) error {
		for _, key := range chunk.SliceKeys(d.ID, d.Size, blockSize) {
			if err := store.Delete(ctx, key); err != nil {
				return fmt.Errorf("delete object %s: %w", key, err)
			}
		}
		return nil
	}, workers)
	return int64(n), err
}
