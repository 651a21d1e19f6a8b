package metrics

import (
	"context"

	"time"

	"cairn/meta"
)

// The namespace and attribute operations of Engine.

func (e *Engine) Lookup(ctx context.Context, parent meta.Ino, name string) (meta.Ino, meta.Attr, error) {
	start := time.Now()
	ino, a, err := e.Engine.Lookup(ctx, parent, name)
	e.done("lookup", start, err)
	return ino, a, err
}

func (e *Engine) GetAttr(ctx context.Context, ino meta.Ino) (meta.Attr, error) {
	start := time.Now()
	a, err := e.Engine.GetAttr(ctx, ino)
	e.done("getattr", start, err)
	return a, err
}

func (e *Engine) SetAttr(ctx context.Context, cred meta.Cred, ino meta.Ino, set meta.SetAttr) (meta.Attr, error) {
	start := time.Now()
	a, err := e.Engine.SetAttr(ctx, cred, ino, set)
	e.done("setattr", start, err)
	return a, err
}

func (e *Engine) Truncate(ctx context.Context, cred meta.Cred, ino meta.Ino, length uint64) (meta.Attr, error) {
	start := time.Now()
	a, err := e.Engine.Truncate(ctx, cred, ino, length)
	e.done("truncate", start, err)
	return a, err
}

func (e *Engine) Fallocate(ctx context.Context, cred meta.Cred, ino meta.Ino, mode uint8, off, size uint64) (meta.Attr, error) {
	start := time.Now()
	a, err := e.Engine.Fallocate(ctx, cred, ino, mode, off, size)
	e.done("fallocate", start, err)
	return a, err
}

func (e *Engine) Mknod(ctx context.Context, cred meta.Cred, parent meta.Ino, name string, ino meta.Ino, typ meta.FileType, mode uint16, rdev uint32, target string) (meta.Attr, error) {
	start := time.Now()
	a, err := e.Engine.Mknod(ctx, cred, parent, name, ino, typ, mode, rdev, target)
	e.done("mknod", start, err)
	return a, err
}

func (e *Engine) Link(ctx context.Context, cred meta.Cred, ino meta.Ino, parent meta.Ino, name string) (meta.Attr, error) {
	start := time.Now()
	a, err := e.Engine.Link(ctx, cred, ino, parent, name)
	e.done("link", start, err)
	return a, err
}

func (e *Engine) Unlink(ctx context.Context, cred meta.Cred, parent meta.Ino, name string, sid uint64) (meta.Ino, meta.Attr, error) {
	start := time.Now()
	ino, a, err := e.Engine.Unlink(ctx, cred, parent, name, sid)
	e.done("unlink", start, err)
	return ino, a, err
}

func (e *Engine) Rmdir(ctx context.Context, cred meta.Cred, parent meta.Ino, name string) error {
	start := time.Now()
	err := e.Engine.Rmdir(ctx, cred, parent, name)
	e.done("rmdir", start, err)
	return err
}

func (e *Engine) Rename(ctx context.Context, cred meta.Cred, srcParent meta.Ino, srcName string, dstParent meta.Ino, dstName string, flags uint32, sid uint64) (meta.Ino, meta.Attr, meta.Ino, error) {
	start := time.Now()
	moved, a, replaced, err := e.Engine.Rename(ctx, cred, srcParent, srcName, dstParent, dstName, flags, sid)
	e.done("rename", start, err)
	return moved, a, replaced, err
}

func (e *Engine) ReleaseOrphan(ctx context.Context, sid uint64, ino meta.Ino) error {
	start := time.Now()
	err := e.Engine.ReleaseOrphan(ctx, sid, ino)
	e.done("release_orphan", start, err)
	return err
}

func (e *Engine) Readlink(ctx context.Context, ino meta.Ino) (string, error) {
	start := time.Now()
	t, err := e.Engine.Readlink(ctx, ino)
	e.done("readlink", start, err)
	return t, err
}

func (e *Engine) Readdir(ctx context.Context, ino meta.Ino, after string, limit int, plus bool) ([]meta.Entry, error) {
	start := time.Now()
	entries, err := e.Engine.Readdir(ctx, ino, after, limit, plus)
	e.done("readdir", start, err)
	return entries, err
}

func (e *Engine) RmdirAt(ctx context.Context, cred meta.Cred, parent meta.Ino, name string) (int64, error) {
	start := time.Now()
	changed, err := meta.RmdirAt(ctx, e.Engine, cred, parent, name)
	e.done("rmdir", start, err)
	return changed, err
}

func (e *Engine) UnlinkDelete(ctx context.Context, cred meta.Cred, parent meta.Ino, name string, sid uint64, expect meta.Ino) (meta.Ino, meta.Attr, bool, error) {
	start := time.Now()
	ino, a, deleted, err := meta.UnlinkDelete(ctx, e.Engine, cred, parent, name, sid, expect)
	e.done("unlink", start, err)
	return ino, a, deleted, err
}
