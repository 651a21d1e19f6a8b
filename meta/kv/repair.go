package kv

import (
	"context"
	"fmt"

	"cairn/meta"
)

var _ meta.Repairer = (*Engine)(nil)

// AdjustNlink changes ino's link count by delta, see meta.Repairer.
func (e *Engine) AdjustNlink(ctx context.Context, ino meta.Ino, delta int64) error {
	return e.txn(ctx, func(t *txn) error {
		a, err := t.attr(ino)
		if err != nil {
			return err
		}
		n, ok := meta.AdjustedNlink(a.Nlink, delta)
		if !ok {
			return fmt.Errorf("link count %d of inode %d %+d: %w", a.Nlink, ino, delta, meta.ErrInvalid)
		}
		a.Nlink = n
		t.setAttr(ino, &a)
		return nil
	})
}

// AdjustUsage changes the volume's usage, see meta.Repairer.
func (e *Engine) AdjustUsage(ctx context.Context, space, inodes int64) error {
	return e.txn(ctx, func(t *txn) error {
		t.addUsage(meta.RootIno, space, inodes)
		return nil
	})
}
