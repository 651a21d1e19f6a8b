package redis

import (
	"context"
	"errors"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"cairn/meta"
)

// Mknod creates an inode and its entry, see meta.Engine.
func (e *Engine) Mknod(ctx context.Context, cred meta.Cred, parent meta.Ino, name string, ino meta.Ino, typ meta.FileType, mode uint16, rdev uint32, target string) (meta.Attr, error) {
	if typ == meta.TypeSymlink {
		mode = 0777
	}
	r, err := e.call(ctx, "mknod", cred, uint64(parent), name, uint64(ino), uint8(typ), mode, rdev, target)
	if err != nil {
		return meta.Attr{}, err
	}
	return resultAttr(r)
}

// Link adds a hard link, see meta.Engine.
func (e *Engine) Link(ctx context.Context, cred meta.Cred, ino meta.Ino, parent meta.Ino, name string) (meta.Attr, error) {
	r, err := e.call(ctx, "link", cred, uint64(ino), uint64(parent), name)
	if err != nil {
		return meta.Attr{}, err
	}
	return resultAttr(r)
}

// Unlink removes a non-directory entry, see meta.Engine.
func (e *Engine) Unlink(ctx context.Context, cred meta.Cred, parent meta.Ino, name string, sid uint64) (meta.Ino, meta.Attr, error) {
	ino, a, _, err := e.UnlinkDelete(ctx, cred, parent, name, sid, 0)
	return ino, a, err
}

// Rmdir removes an empty directory, see meta.Engine.
func (e *Engine) Rmdir(ctx context.Context, cred meta.Cred, parent meta.Ino, name string) error {
	_, err := e.RmdirAt(ctx, cred, parent, name)
	return err
}

var _ meta.RmdirTimer = (*Engine)(nil)

// RmdirAt is Rmdir; the script sets the parent's times to the clock it is
// given, see meta.RmdirTimer.
func (e *Engine) RmdirAt(ctx context.Context, cred meta.Cred, parent meta.Ino, name string) (int64, error) {
	now := time.Now()
	if _, err := e.callAt(ctx, "rmdir", cred, now, uint64(parent), name); err != nil {
		return 0, err
	}
	return now.UnixNano(), nil
}

// Rename moves an entry with renameat2 semantics, see meta.Engine.
func (e *Engine) Rename(ctx context.Context, cred meta.Cred, srcParent meta.Ino, srcName string, dstParent meta.Ino, dstName string, flags uint32, sid uint64) (meta.Ino, meta.Attr, meta.Ino, error) {
	r, err := e.call(ctx, "rename", cred, uint64(srcParent), srcName, uint64(dstParent), dstName, flags, sid)
	if err != nil {
		return 0, meta.Attr{}, 0, err
	}
	list, err := resultList(r, 3)
	if err != nil {
		return 0, meta.Attr{}, 0, err
	}
	moved, a, err := inoAttr(list[:2])
	if err != nil {
		return 0, meta.Attr{}, 0, err
	}
	replaced, err := resultInt(list[2])
	return moved, a, meta.Ino(replaced), err
}

// Readlink returns a symlink's target: one MGET of target and attributes.
func (e *Engine) Readlink(ctx context.Context, ino meta.Ino) (string, error) {
	vals, err := e.rdb.MGet(ctx, e.key("s", uint64(ino)), e.key("i", uint64(ino))).Result()
	if err != nil {
		return "", e.fail("readlink", err)
	}
	if target, ok := vals[0].(string); ok {
		return target, nil
	}
	if vals[1] == nil {
		return "", meta.ErrNotFound
	}
	return "", meta.ErrInvalid
}

// Readdir lists a page of a directory in byte order, see meta.Engine: one
// call of the readdir script.
func (e *Engine) Readdir(ctx context.Context, ino meta.Ino, after string, limit int, plus bool) ([]meta.Entry, error) {
	p := "0"
	if plus {
		p = "1"
	}
	r, err := e.call(ctx, "readdir", meta.RootCred, uint64(ino), after, limit, p)
	if errors.Is(err, goredis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	list, err := resultList(r, 0)
	if err != nil {
		return nil, err
	}
	step := 1
	if plus {
		step = 2
	}
	out := make([]meta.Entry, 0, len(list)/step)
	var attrs []meta.Attr // one allocation for the page's attributes
	if plus {
		attrs = make([]meta.Attr, 0, len(list)/step)
	}
	for i := 0; i+step <= len(list); i += step {
		m, _ := list[i].(string)
		en, err := decodeEntry(m)
		if err != nil {
			return nil, err
		}
		if plus {
			raw, _ := list[i+1].(string)
			a, err := decodeAttr(raw)
			if err != nil {
				return nil, err
			}
			attrs = append(attrs, a)
			en.Attr = &attrs[len(attrs)-1]
		}
		out = append(out, en)
	}
	return out, nil
}
