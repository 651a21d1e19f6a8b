package meta

import (
	"context"
	"sync"
)

// idPool hands out numbers from ranges reserved in batches, so that a
// create or a write pays a round trip for its id once per batch.
type idPool struct {
	batch uint64
	fetch func(ctx context.Context, n uint64) (uint64, error)

	mu   sync.Mutex
	next uint64
	end  uint64 // exclusive
}

func (p *idPool) get(ctx context.Context) (uint64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.next == p.end {
		first, err := p.fetch(ctx, p.batch)
		if err != nil {
			return 0, err
		}
		p.next, p.end = first, first+p.batch
	}
	id := p.next
	p.next++
	return id, nil
}

// NewSliceID returns a fresh slice id.
func (c *Client) NewSliceID(ctx context.Context) (uint64, error) {
	return c.slices.get(ctx)
}

func (c *Client) newIno(ctx context.Context) (Ino, error) {
	id, err := c.inodes.get(ctx)
	return Ino(id), err
}
