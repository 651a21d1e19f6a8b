package gc

import (
	"context"
	"fmt"
	"sync"

	"cairn/chunk"
	"cairn/meta"
	"cairn/object"
)

// deadBatch is how many dead slices are taken from the queue at once.
const deadBatch = 1000

// emptyDeadQueue removes the blocks of the slices in the dead-slice queue
// and drops them from it, as clients do in the background (several may
// run at once: deleting a missing object succeeds). It returns how many
// slices left the queue.
func emptyDeadQueue(ctx context.Context, eng meta.Engine, store object.Store, blockSize, workers int) (int64, error) {
	var total int64
	for {
		dead, err := eng.DeadSlices(ctx, deadBatch)
		if err != nil {
			return total, fmt.Errorf("list dead slices: %w", err)
		}
		if len(dead) == 0 {
			return total, nil
		}
		errs := make([]error, len(dead))
		sem := make(chan struct{}, workers)
		var wg sync.WaitGroup
		for i, d := range dead {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				for _, key := range chunk.SliceKeys(d.ID, d.Size, blockSize) {
					if err := store.Delete(ctx, key); err != nil {
						errs[i] = fmt.Errorf("delete object %s of dead slice %d: %w", key, d.ID, err)
						return
					}
				}
			}()
		}
		wg.Wait()
		var gone []uint64
		var first error
		for i, err := range errs {
			if err == nil {
				gone = append(gone, dead[i].ID)
			} else if first == nil {
				first = err
			}
		}
		if len(gone) > 0 {
			if err := eng.ForgetSlices(ctx, gone); err != nil {
				return total, fmt.Errorf("drop removed slices from the dead-slice queue: %w", err)
			}
			total += int64(len(gone))
		}
		if first != nil {
			return total, first
		}
		if len(dead) < deadBatch {
			return total, nil
		}
	}
}
