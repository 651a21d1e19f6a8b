package meta

import (
	"context"
	"fmt"
	"sync"
)

// DeadQueue is the dead-slice queue as an Engine (and a Client) offers it.
type DeadQueue interface {
	DeadSlices(ctx context.Context, limit int) ([]DeadSlice, error)
	ForgetSlices(ctx context.Context, ids []uint64) error
}

// deadBatch is how many dead slices EmptyDeadQueue takes at once.
const deadBatch = 1000

// EmptyDeadQueue removes the blocks of the slices in q with remove, up to
// workers at once, and drops from q those whose removal succeeded, until
// q is empty or a removal fails. It returns how many slices left the
// queue. Several clients may run it at once, so remove must succeed on
// blocks that are already gone.
func EmptyDeadQueue(ctx context.Context, q DeadQueue, remove func(context.Context, DeadSlice) error, workers int) (int, error) {
	total := 0
	for {
		dead, err := q.DeadSlices(ctx, deadBatch)
		if err != nil {
			return total, fmt.Errorf("list dead slices: %w", err)
		}
		if len(dead) == 0 {
			return total, nil
		}
		errs := make([]error, len(dead))
		sem := make(chan struct{}, max(workers, 1))
		var wg sync.WaitGroup
		for i, d := range dead {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				errs[i] = remove(ctx, d)
			}()
		}
		wg.Wait()
		var gone []uint64
		var first error
		for i, err := range errs {
			if err == nil {
				gone = append(gone, dead[i].ID)
			} else if first == nil {
				first = fmt.Errorf("remove the blocks of dead slice %d: %w", dead[i].ID, err)
			}
		}
		if len(gone) > 0 {
			if err := q.ForgetSlices(ctx, gone); err != nil {
				return total, fmt.Errorf("drop removed slices from the dead-slice queue: %w", err)
			}
			total += len(gone)
		}
		if first != nil {
			return total, first
		}
		if len(dead) < deadBatch {
			return total, nil
		}
	}
}
