package redis

import (
	"context"
	"fmt"

	"cairn/meta"
)

// NextInodes reserves n inode numbers, see meta.Engine. The counter starts
// at 1 (the root), so the first number handed out is 2.
func (e *Engine) NextInodes(ctx context.Context, n uint64) (meta.Ino, error) {
	n = max(n, 1)
	last, err := e.rdb.IncrBy(ctx, e.prefix+":nextino", int64(n)).Uint64()
	if err != nil {
		return 0, e.fail("reserve inode numbers", err)
	}
	return meta.Ino(last - n + 1), nil
}

// NextSlices reserves n slice ids, see meta.Engine.
func (e *Engine) NextSlices(ctx context.Context, n uint64) (uint64, error) {
	n = max(n, 1)
	last, err := e.rdb.IncrBy(ctx, e.prefix+":nextslice", int64(n)).Uint64()
	if err != nil {
		return 0, e.fail("reserve slice ids", err)
	}
	return last - n + 1, nil
}

// Usage reports what the volume holds, see meta.Engine.
func (e *Engine) Usage(ctx context.Context) (meta.Usage, error) {
	var u meta.Usage
	vals, err := e.rdb.HMGet(ctx, e.prefix+":usage", "space", "inodes").Result()
	if err != nil {
		return u, e.fail("usage", err)
	}
	for i, v := range vals {
		var n uint64
		if s, ok := v.(string); ok {
			if _, err := fmt.Sscan(s, &n); err != nil {
				return u, fmt.Errorf("corrupt usage counter %q: %w", s, meta.ErrIO)
			}
		}
		if i == 0 {
			u.Space = n
		} else {
			u.Inodes = n
		}
	}
	return u, nil
}
