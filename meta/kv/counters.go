package kv

import (
	"context"
	"fmt"

	"cairn/meta"
)

const (
	counterInode   = "inode"
	counterSlice   = "slice"
	counterSession = "session"
)

// next reserves n values of a counter and returns the first; counters start
// at 1 so that 0 is never handed out.
func (e *Engine) next(ctx context.Context, name string, n uint64) (uint64, error) {
	var first uint64
	err := e.txn(ctx, func(t *txn) error {
		v, err := t.get(t.k.counter(name))
		if err != nil {
			return err
		}
		first, err = counterValue(v)
		if err != nil {
			return err
		}
		first = max(first, 1)
		t.put(t.k.counter(name), u64(first+n))
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("reserve %d from counter %s: %w", n, name, err)
	}
	return first, nil
}

func (e *Engine) NextInodes(ctx context.Context, n uint64) (meta.Ino, error) {
	first, err := e.next(ctx, counterInode, n)
	return meta.Ino(first), err
}

func (e *Engine) NextSlices(ctx context.Context, n uint64) (uint64, error) {
	return e.next(ctx, counterSlice, n)
}

func (e *Engine) Usage(ctx context.Context) (meta.Usage, error) {
	var u meta.Usage
	err := e.txn(ctx, func(t *txn) error {
		var err error
		u, err = t.usageTotal()
		return err
	})
	if err != nil {
		return u, fmt.Errorf("read usage: %w", err)
	}
	return u, nil
}

// usageTotal sums the usage shards.
func (t *txn) usageTotal() (meta.Usage, error) {
	b, end := t.k.usageRange()
	kvs, err := t.Scan(b, end, usageShards+1)
	if err != nil {
		return meta.Usage{}, err
	}
	var sum usageDelta
	for _, kv := range kvs {
		t.cache[string(kv.Key)] = kv.Value
		d, err := decodeUsage(kv.Value)
		if err != nil {
			return meta.Usage{}, err
		}
		sum.space += d.space
		sum.inodes += d.inodes
	}
	return meta.Usage{Space: uint64(max(sum.space, 0)), Inodes: uint64(max(sum.inodes, 0))}, nil
}

// checkSpace fails with ErrNoSpace when adding space bytes and inodes
// inodes would exceed the volume's limits. It reads the usage only when
// there is a limit.
func (t *txn) checkSpace(space, inodes int64) error {
	maxSpace, maxInodes := t.e.limits()
	if (maxSpace == 0 || space <= 0) && (maxInodes == 0 || inodes <= 0) {
		return nil
	}
	u, err := t.usageTotal()
	if err != nil {
		return err
	}
	if maxSpace > 0 && space > 0 && u.Space+uint64(space) > maxSpace {
		return fmt.Errorf("volume capacity %d bytes reached: %w", maxSpace, meta.ErrNoSpace)
	}
	if maxInodes > 0 && inodes > 0 && u.Inodes+uint64(inodes) > maxInodes {
		return fmt.Errorf("volume limit of %d inodes reached: %w", maxInodes, meta.ErrNoSpace)
	}
	return nil
}
