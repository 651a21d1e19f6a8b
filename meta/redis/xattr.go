package redis

import (
	"context"
	"errors"
	"sort"

	goredis "github.com/redis/go-redis/v9"

	"cairn/meta"
)

// GetXattr reads one extended attribute: one HGET.
func (e *Engine) GetXattr(ctx context.Context, ino meta.Ino, name string) ([]byte, error) {
	v, err := e.rdb.HGet(ctx, e.key("x", uint64(ino)), name).Bytes()
	if errors.Is(err, goredis.Nil) {
		return nil, meta.ErrNoAttr
	}
	if err != nil {
		return nil, e.fail("getxattr", err)
	}
	return v, nil
}

// ListXattr lists the names of an inode's extended attributes, sorted.
func (e *Engine) ListXattr(ctx context.Context, ino meta.Ino) ([]string, error) {
	names, err := e.rdb.HKeys(ctx, e.key("x", uint64(ino))).Result()
	if err != nil {
		return nil, e.fail("listxattr", err)
	}
	sort.Strings(names)
	return names, nil
}

// SetXattr sets an extended attribute, see meta.Engine.
func (e *Engine) SetXattr(ctx context.Context, cred meta.Cred, ino meta.Ino, name string, value []byte, flags uint32) error {
	if err := checkXattr(name); err != nil {
		return err
	}
	if len(value) > meta.MaxXattrValue {
		return meta.ErrRange
	}
	if flags&^(meta.XattrCreate|meta.XattrReplace) != 0 || flags == meta.XattrCreate|meta.XattrReplace {
		return meta.ErrInvalid
	}
	_, err := e.call(ctx, "setxattr", cred, uint64(ino), name, value, flags)
	return err
}

// RemoveXattr removes an extended attribute, see meta.Engine.
func (e *Engine) RemoveXattr(ctx context.Context, cred meta.Cred, ino meta.Ino, name string) error {
	if err := checkXattr(name); err != nil {
		return err
	}
	_, err := e.call(ctx, "removexattr", cred, uint64(ino), name)
	return err
}

func checkXattr(name string) error {
	if name == "" {
		return meta.ErrInvalid
	}
	if len(name) > meta.MaxXattrName {
		return meta.ErrRange
	}
	return nil
}
