package redis

import (
	"context"
	"errors"

	goredis "github.com/redis/go-redis/v9"

	"cairn/meta"
)

// Lookup finds name in parent, see meta.Engine.
func (e *Engine) Lookup(ctx context.Context, parent meta.Ino, name string) (meta.Ino, meta.Attr, error) {
	r, err := e.call(ctx, "lookup", meta.RootCred, uint64(parent), name)
	if err != nil {
		return 0, meta.Attr{}, err
	}
	return inoAttr(r)
}

// GetAttr reads an inode's attributes: one GET.
func (e *Engine) GetAttr(ctx context.Context, ino meta.Ino) (meta.Attr, error) {
	raw, err := e.rdb.Get(ctx, e.key("i", uint64(ino))).Result()
	if errors.Is(err, goredis.Nil) {
		return meta.Attr{}, meta.ErrNotFound
	}
	if err != nil {
		return meta.Attr{}, e.fail("getattr", err)
	}
	return decodeAttr(raw)
}

// SetAttr changes mode, owner and times, see meta.Engine.
func (e *Engine) SetAttr(ctx context.Context, cred meta.Cred, ino meta.Ino, set meta.SetAttr) (meta.Attr, error) {
	r, err := e.call(ctx, "setattr", cred, append([]any{uint64(ino)}, setArgs(set)...)...)
	if err != nil {
		return meta.Attr{}, err
	}
	return resultAttr(r)
}

// setArgs encodes a SetAttr as scripts/perm.lua's read_set reads it.
func setArgs(set meta.SetAttr) []any {
	var which int
	var mode uint16
	var uid, gid uint32
	var as, an, ms, mn int64
	if set.Mode != nil {
		which |= 1
		mode = *set.Mode
	}
	if set.Uid != nil {
		which |= 2
		uid = *set.Uid
	}
	if set.Gid != nil {
		which |= 4
		gid = *set.Gid
	}
	if set.Atime != nil {
		which |= 8
		as, an = meta.SplitTime(*set.Atime)
	}
	if set.Mtime != nil {
		which |= 16
		ms, mn = meta.SplitTime(*set.Mtime)
	}
	if set.AtimeNow {
		which |= 32
	}
	if set.MtimeNow {
		which |= 64
	}
	if set.ClearSetid {
		which |= 128
	}
	return []any{which, mode, uid, gid, as, an, ms, mn}
}

// Truncate sets a regular file's length, see meta.Engine.
func (e *Engine) Truncate(ctx context.Context, cred meta.Cred, ino meta.Ino, length uint64) (meta.Attr, error) {
	r, err := e.call(ctx, "truncate", cred, uint64(ino), length)
	if err != nil {
		return meta.Attr{}, err
	}
	return resultAttr(r)
}

// Fallocate allocates, punches or zeroes a range, see meta.Engine.
func (e *Engine) Fallocate(ctx context.Context, cred meta.Cred, ino meta.Ino, mode uint8, off, size uint64) (meta.Attr, error) {
	r, err := e.call(ctx, "fallocate", cred, uint64(ino), mode, off, size)
	if err != nil {
		return meta.Attr{}, err
	}
	return resultAttr(r)
}
