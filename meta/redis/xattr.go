package redis

import (
	"context"
	"errors"
	"sort"

	goredis "github.com/redis/go-redis/v9"

	"cairn/meta"
)

// GetXattr reads one extended attribute: HGET and EXISTS of the inode in
// one pipeline, to tell a missing attribute from a missing inode.
func (e *Engine) GetXattr(ctx context.Context, ino meta.Ino, name string) ([]byte, error) {
	var value *goredis.StringCmd
	var exists *goredis.IntCmd
	_, err := e.rdb.Pipelined(ctx, func(p goredis.Pipeliner) error {
		value = p.HGet(ctx, e.key("x", uint64(ino)), name)
		exists = p.Exists(ctx, e.key("i", uint64(ino)))
		return nil
	})
	if err != nil && !errors.Is(err, goredis.Nil) {
		return nil, e.fail("getxattr", err)
	}
	if exists.Val() == 0 {
		return nil, meta.ErrNotFound
	}
	v, err := value.Bytes()
	if errors.Is(err, goredis.Nil) {
		return nil, meta.ErrNoAttr
	}
	return v, err
}

// ListXattr lists the names of an inode's extended attributes, sorted.
func (e *Engine) ListXattr(ctx context.Context, ino meta.Ino) ([]string, error) {
	var names *goredis.StringSliceCmd
	var exists *goredis.IntCmd
	_, err := e.rdb.Pipelined(ctx, func(p goredis.Pipeliner) error {
		names = p.HKeys(ctx, e.key("x", uint64(ino)))
		exists = p.Exists(ctx, e.key("i", uint64(ino)))
		return nil
	})
	if err != nil {
		return nil, e.fail("listxattr", err)
	}
	if exists.Val() == 0 {
		return nil, meta.ErrNotFound
	}
	out := names.Val()
	sort.Strings(out)
	return out, nil
}

// SetXattr sets an extended attribute, see meta.Engine.
func (e *Engine) SetXattr(ctx context.Context, cred meta.Cred, ino meta.Ino, name string, value []byte, flags uint32) error {
	_, err := e.call(ctx, "setxattr", cred, uint64(ino), name, value, flags)
	return err
}

// RemoveXattr removes an extended attribute, see meta.Engine.
func (e *Engine) RemoveXattr(ctx context.Context, cred meta.Cred, ino meta.Ino, name string) error {
	_, err := e.call(ctx, "removexattr", cred, uint64(ino), name)
	return err
}
