package vfs

import (
	"context"
	"fmt"
	"sync"
)

// CollectGarbage removes the blocks of dead slices and drops them from the
// engine's queue, until the queue is empty. It returns how many slices it
// removed. Several clients may run it at once: removing a missing block
// succeeds.
func (v *VFS) CollectGarbage(ctx context.Context) (int, error) {
	const batch = 1000
	total := 0
	for {
		dead, err := v.client.DeadSlices(ctx, batch)
		if err != nil {
			return total, fmt.Errorf("list dead slices: %w", err)
		}
		if len(dead) == 0 {
			return total, nil
		}
		ids := make([]uint64, len(dead))
		errs := make([]error, len(dead))
		sem := make(chan struct{}, 8)
		var wg sync.WaitGroup
		for i, d := range dead {
			ids[i] = d.ID
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				errs[i] = v.store.Remove(ctx, d.ID, d.Size)
			}()
		}
		wg.Wait()
		var gone []uint64
		var firstErr error
		for i, err := range errs {
			if err != nil {
				if firstErr == nil {
					firstErr = fmt.Errorf("remove blocks of slice %d: %w", ids[i], err)
				}
				continue
			}
			gone = append(gone, ids[i])
		}
		if len(gone) > 0 {
			if err := v.client.ForgetSlices(ctx, gone); err != nil {
				return total, fmt.Errorf("forget removed slices: %w", err)
			}
			total += len(gone)
		}
		if firstErr != nil {
			return total, firstErr
		}
		if len(dead) < batch {
			return total, nil
		}
	}
}
