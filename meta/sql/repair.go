package sql

import (
	"context"
	"fmt"

	"cairn/meta"
)

var _ meta.Repairer = (*Engine)(nil)

// AdjustNlink changes ino's link count by delta, see meta.Repairer.
func (e *Engine) AdjustNlink(ctx context.Context, ino meta.Ino, delta int64) error {
	return e.txn(ctx, func(c *conn) error {
		var nlink int64
		err := c.queryRow("SELECT nlink FROM cairn_node WHERE ino = ?", int64(ino)).Scan(&nlink)
		if isNoRows(err) {
			return fmt.Errorf("inode %d: %w", ino, meta.ErrNotFound)
		}
		if err != nil {
			return err
		}
		n, ok := meta.AdjustedNlink(uint32(nlink), delta)
		if !ok {
			return fmt.Errorf("link count %d of inode %d %+d: %w", nlink, ino, delta, meta.ErrInvalid)
		}
		_, err = c.execCount("UPDATE cairn_node SET nlink = ? WHERE ino = ?", int64(n), int64(ino))
		return err
	})
}

// AdjustUsage changes the volume's usage, see meta.Repairer.
func (e *Engine) AdjustUsage(ctx context.Context, space, inodes int64) error {
	return e.txn(ctx, func(c *conn) error {
		_, err := c.execCount("UPDATE cairn_usage SET space = space + ?, inodes = inodes + ? WHERE id = 1", space, inodes)
		return err
	})
}
