package redis

import (
	"context"
	"errors"
	"fmt"

	goredis "github.com/redis/go-redis/v9"

	"cairn/meta"
)

var _ meta.Repairer = (*Engine)(nil)

// repairAttempts bounds how often AdjustNlink re-reads an inode that
// changed under it.
const repairAttempts = 100

// AdjustNlink changes ino's link count by delta, see meta.Repairer: the
// inode's record is read and rewritten under WATCH, and read again when a
// client changed it in between.
func (e *Engine) AdjustNlink(ctx context.Context, ino meta.Ino, delta int64) error {
	key := e.key("i", uint64(ino))
	adjust := func(tx *goredis.Tx) error {
		raw, err := tx.Get(ctx, key).Result()
		if errors.Is(err, goredis.Nil) {
			return fmt.Errorf("inode %d: %w", ino, meta.ErrNotFound)
		}
		if err != nil {
			return err
		}
		a, err := decodeAttr(raw)
		if err != nil {
			return fmt.Errorf("inode %d: %w", ino, err)
		}
		n, ok := meta.AdjustedNlink(a.Nlink, delta)
		if !ok {
			return fmt.Errorf("link count %d of inode %d %+d: %w", a.Nlink, ino, delta, meta.ErrInvalid)
		}
		a.Nlink = n
		_, err = tx.TxPipelined(ctx, func(p goredis.Pipeliner) error {
			p.Set(ctx, key, encodeAttr(&a), 0)
			return nil
		})
		return err
	}
	for range repairAttempts {
		err := e.rdb.Watch(ctx, adjust, key)
		if errors.Is(err, goredis.TxFailedErr) {
			continue
		}
		if err != nil && !errors.Is(err, meta.ErrNotFound) && !errors.Is(err, meta.ErrInvalid) {
			return e.fail("adjust link count", err)
		}
		return err
	}
	return fmt.Errorf("adjust the link count of inode %d: %w", ino, meta.ErrConflict)
}

// AdjustUsage changes the volume's usage, see meta.Repairer.
func (e *Engine) AdjustUsage(ctx context.Context, space, inodes int64) error {
	_, err := e.rdb.TxPipelined(ctx, func(p goredis.Pipeliner) error {
		p.HIncrBy(ctx, e.prefix+":usage", "space", space)
		p.HIncrBy(ctx, e.prefix+":usage", "inodes", inodes)
		return nil
	})
	if err != nil {
		return e.fail("adjust usage", err)
	}
	return nil
}
