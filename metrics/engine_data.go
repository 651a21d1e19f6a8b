package metrics

import (
	"context"
	"time"

	"cairn/meta"
)

// The slice, xattr and lock operations of Engine.

func (e *Engine) Read(ctx context.Context, ino meta.Ino, idx uint32) ([]meta.Slice, error) {
	start := time.Now()
	s, err := e.Engine.Read(ctx, ino, idx)
	e.done("read", start, err)
	return s, err
}

func (e *Engine) Write(ctx context.Context, ino meta.Ino, idx uint32, s meta.Slice, mtime int64) (meta.Attr, int, error) {
	start := time.Now()
	a, n, err := e.Engine.Write(ctx, ino, idx, s, mtime)
	e.done("write", start, err)
	return a, n, err
}

func (e *Engine) Compact(ctx context.Context, ino meta.Ino, idx uint32, old []meta.Slice, s meta.Slice) error {
	start := time.Now()
	err := e.Engine.Compact(ctx, ino, idx, old, s)
	e.done("compact", start, err)
	return err
}

func (e *Engine) DeadSlices(ctx context.Context, limit int) ([]meta.DeadSlice, error) {
	start := time.Now()
	d, err := e.Engine.DeadSlices(ctx, limit)
	e.done("dead_slices", start, err)
	return d, err
}

func (e *Engine) ForgetSlices(ctx context.Context, ids []uint64) error {
	start := time.Now()
	err := e.Engine.ForgetSlices(ctx, ids)
	e.done("forget_slices", start, err)
	return err
}

func (e *Engine) GetXattr(ctx context.Context, ino meta.Ino, name string) ([]byte, error) {
	start := time.Now()
	v, err := e.Engine.GetXattr(ctx, ino, name)
	e.done("getxattr", start, err)
	return v, err
}

func (e *Engine) ListXattr(ctx context.Context, ino meta.Ino) ([]string, error) {
	start := time.Now()
	names, err := e.Engine.ListXattr(ctx, ino)
	e.done("listxattr", start, err)
	return names, err
}

func (e *Engine) SetXattr(ctx context.Context, cred meta.Cred, ino meta.Ino, name string, value []byte, flags uint32) error {
	start := time.Now()
	err := e.Engine.SetXattr(ctx, cred, ino, name, value, flags)
	e.done("setxattr", start, err)
	return err
}

func (e *Engine) RemoveXattr(ctx context.Context, cred meta.Cred, ino meta.Ino, name string) error {
	start := time.Now()
	err := e.Engine.RemoveXattr(ctx, cred, ino, name)
	e.done("removexattr", start, err)
	return err
}

func (e *Engine) Flock(ctx context.Context, ino meta.Ino, owner meta.LockOwner, typ uint32) error {
	start := time.Now()
	err := e.Engine.Flock(ctx, ino, owner, typ)
	e.done("flock", start, err)
	return err
}

func (e *Engine) GetLk(ctx context.Context, ino meta.Ino, owner meta.LockOwner, l meta.Lock) (meta.Lock, error) {
	start := time.Now()
	got, err := e.Engine.GetLk(ctx, ino, owner, l)
	e.done("getlk", start, err)
	return got, err
}

func (e *Engine) SetLk(ctx context.Context, ino meta.Ino, owner meta.LockOwner, l meta.Lock) error {
	start := time.Now()
	err := e.Engine.SetLk(ctx, ino, owner, l)
	e.done("setlk", start, err)
	return err
}
