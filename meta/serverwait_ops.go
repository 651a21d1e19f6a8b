package meta

import (
	"context"
	"time"
)

// The Engine methods of serverWait: each names its operation and says
// whether it may be sent twice. Name, Stats and Close reach no server.

func (w *serverWait) Init(ctx context.Context, f Format, force bool) error {
	return w.do(ctx, "init", once, func(ctx context.Context) error { return w.Engine.Init(ctx, f, force) })
}

func (w *serverWait) Load(ctx context.Context) (f Format, err error) {
	err = w.do(ctx, "load", repeatable, func(ctx context.Context) error {
		f, err = w.Engine.Load(ctx)
		return err
	})
	return f, err
}

func (w *serverWait) NewSession(ctx context.Context, info SessionInfo) (sid uint64, err error) {
	err = w.do(ctx, "new session", once, func(ctx context.Context) error {
		sid, err = w.Engine.NewSession(ctx, info)
		return err
	})
	return sid, err
}

func (w *serverWait) Heartbeat(ctx context.Context, sid uint64) error {
	return w.do(ctx, "heartbeat", repeatable, func(ctx context.Context) error { return w.Engine.Heartbeat(ctx, sid) })
}

func (w *serverWait) CloseSession(ctx context.Context, sid uint64) error {
	return w.do(ctx, "close session", repeatable, func(ctx context.Context) error { return w.Engine.CloseSession(ctx, sid) })
}

func (w *serverWait) ListSessions(ctx context.Context) (l []SessionInfo, err error) {
	err = w.do(ctx, "list sessions", repeatable, func(ctx context.Context) error {
		l, err = w.Engine.ListSessions(ctx)
		return err
	})
	return l, err
}

func (w *serverWait) CleanStaleSessions(ctx context.Context, before time.Time) (n int, err error) {
	err = w.do(ctx, "clean stale sessions", repeatable, func(ctx context.Context) error {
		var m int
		m, err = w.Engine.CleanStaleSessions(ctx, before)
		n += m // a repeat counts only what the first attempt left
		return err
	})
	return n, err
}

func (w *serverWait) NextInodes(ctx context.Context, n uint64) (ino Ino, err error) {
	err = w.do(ctx, "next inodes", repeatable, func(ctx context.Context) error {
		ino, err = w.Engine.NextInodes(ctx, n)
		return err
	})
	return ino, err
}

func (w *serverWait) NextSlices(ctx context.Context, n uint64) (id uint64, err error) {
	err = w.do(ctx, "next slices", repeatable, func(ctx context.Context) error {
		id, err = w.Engine.NextSlices(ctx, n)
		return err
	})
	return id, err
}

func (w *serverWait) Usage(ctx context.Context) (u Usage, err error) {
	err = w.do(ctx, "usage", repeatable, func(ctx context.Context) error {
		u, err = w.Engine.Usage(ctx)
		return err
	})
	return u, err
}

func (w *serverWait) Lookup(ctx context.Context, parent Ino, name string) (ino Ino, a Attr, err error) {
	err = w.do(ctx, "lookup", repeatable, func(ctx context.Context) error {
		ino, a, err = w.Engine.Lookup(ctx, parent, name)
		return err
	})
	return ino, a, err
}

func (w *serverWait) GetAttr(ctx context.Context, ino Ino) (a Attr, err error) {
	err = w.do(ctx, "getattr", repeatable, func(ctx context.Context) error {
		a, err = w.Engine.GetAttr(ctx, ino)
		return err
	})
	return a, err
}

func (w *serverWait) SetAttr(ctx context.Context, cred Cred, ino Ino, set SetAttr) (a Attr, err error) {
	err = w.do(ctx, "setattr", repeatable, func(ctx context.Context) error {
		a, err = w.Engine.SetAttr(ctx, cred, ino, set)
		return err
	})
	return a, err
}

func (w *serverWait) Truncate(ctx context.Context, cred Cred, ino Ino, length uint64) (a Attr, err error) {
	err = w.do(ctx, "truncate", repeatable, func(ctx context.Context) error {
		a, err = w.Engine.Truncate(ctx, cred, ino, length)
		return err
	})
	return a, err
}

func (w *serverWait) Fallocate(ctx context.Context, cred Cred, ino Ino, mode uint8, off, size uint64) (a Attr, err error) {
	err = w.do(ctx, "fallocate", once, func(ctx context.Context) error {
		a, err = w.Engine.Fallocate(ctx, cred, ino, mode, off, size)
		return err
	})
	return a, err
}

func (w *serverWait) Mknod(ctx context.Context, cred Cred, parent Ino, name string, ino Ino, typ FileType, mode uint16, rdev uint32, target string) (a Attr, err error) {
	err = w.do(ctx, "mknod", once, func(ctx context.Context) error {
		a, err = w.Engine.Mknod(ctx, cred, parent, name, ino, typ, mode, rdev, target)
		return err
	})
	return a, err
}

func (w *serverWait) Link(ctx context.Context, cred Cred, ino Ino, parent Ino, name string) (a Attr, err error) {
	err = w.do(ctx, "link", once, func(ctx context.Context) error {
		a, err = w.Engine.Link(ctx, cred, ino, parent, name)
		return err
	})
	return a, err
}

func (w *serverWait) Unlink(ctx context.Context, cred Cred, parent Ino, name string, sid uint64) (ino Ino, a Attr, err error) {
	err = w.do(ctx, "unlink", once, func(ctx context.Context) error {
		ino, a, err = w.Engine.Unlink(ctx, cred, parent, name, sid)
		return err
	})
	return ino, a, err
}

func (w *serverWait) Rmdir(ctx context.Context, cred Cred, parent Ino, name string) error {
	return w.do(ctx, "rmdir", once, func(ctx context.Context) error { return w.Engine.Rmdir(ctx, cred, parent, name) })
}

func (w *serverWait) Rename(ctx context.Context, cred Cred, srcParent Ino, srcName string, dstParent Ino, dstName string, flags uint32, sid uint64) (moved Ino, a Attr, replaced Ino, err error) {
	err = w.do(ctx, "rename", once, func(ctx context.Context) error {
		moved, a, replaced, err = w.Engine.Rename(ctx, cred, srcParent, srcName, dstParent, dstName, flags, sid)
		return err
	})
	return moved, a, replaced, err
}

func (w *serverWait) ReleaseOrphan(ctx context.Context, sid uint64, ino Ino) error {
	return w.do(ctx, "release orphan", repeatable, func(ctx context.Context) error { return w.Engine.ReleaseOrphan(ctx, sid, ino) })
}

func (w *serverWait) Readlink(ctx context.Context, ino Ino) (target string, err error) {
	err = w.do(ctx, "readlink", repeatable, func(ctx context.Context) error {
		target, err = w.Engine.Readlink(ctx, ino)
		return err
	})
	return target, err
}

func (w *serverWait) Readdir(ctx context.Context, ino Ino, after string, limit int, plus bool) (l []Entry, err error) {
	err = w.do(ctx, "readdir", repeatable, func(ctx context.Context) error {
		l, err = w.Engine.Readdir(ctx, ino, after, limit, plus)
		return err
	})
	return l, err
}

func (w *serverWait) Read(ctx context.Context, ino Ino, idx uint32) (l []Slice, err error) {
	err = w.do(ctx, "read", repeatable, func(ctx context.Context) error {
		l, err = w.Engine.Read(ctx, ino, idx)
		return err
	})
	return l, err
}

func (w *serverWait) Write(ctx context.Context, ino Ino, idx uint32, s Slice, mtime int64) (a Attr, n int, err error) {
	err = w.do(ctx, "write", once, func(ctx context.Context) error {
		a, n, err = w.Engine.Write(ctx, ino, idx, s, mtime)
		return err
	})
	return a, n, err
}

func (w *serverWait) Compact(ctx context.Context, ino Ino, idx uint32, old []Slice, s Slice) error {
	return w.do(ctx, "compact", once, func(ctx context.Context) error { return w.Engine.Compact(ctx, ino, idx, old, s) })
}

func (w *serverWait) DeadSlices(ctx context.Context, limit int) (l []DeadSlice, err error) {
	err = w.do(ctx, "dead slices", repeatable, func(ctx context.Context) error {
		l, err = w.Engine.DeadSlices(ctx, limit)
		return err
	})
	return l, err
}

func (w *serverWait) ForgetSlices(ctx context.Context, ids []uint64) error {
	return w.do(ctx, "forget slices", repeatable, func(ctx context.Context) error { return w.Engine.ForgetSlices(ctx, ids) })
}

func (w *serverWait) GetXattr(ctx context.Context, ino Ino, name string) (v []byte, err error) {
	err = w.do(ctx, "getxattr", repeatable, func(ctx context.Context) error {
		v, err = w.Engine.GetXattr(ctx, ino, name)
		return err
	})
	return v, err
}

func (w *serverWait) ListXattr(ctx context.Context, ino Ino) (l []string, err error) {
	err = w.do(ctx, "listxattr", repeatable, func(ctx context.Context) error {
		l, err = w.Engine.ListXattr(ctx, ino)
		return err
	})
	return l, err
}

func (w *serverWait) SetXattr(ctx context.Context, cred Cred, ino Ino, name string, value []byte, flags uint32) error {
	safety := repeatable // setting a value outright
	if flags != 0 {
		safety = once // a repeat of XattrCreate would find the first one's value
	}
	return w.do(ctx, "setxattr", safety, func(ctx context.Context) error { return w.Engine.SetXattr(ctx, cred, ino, name, value, flags) })
}

func (w *serverWait) RemoveXattr(ctx context.Context, cred Cred, ino Ino, name string) error {
	return w.do(ctx, "removexattr", once, func(ctx context.Context) error { return w.Engine.RemoveXattr(ctx, cred, ino, name) })
}

func (w *serverWait) Flock(ctx context.Context, ino Ino, owner LockOwner, typ uint32) error {
	return w.do(ctx, "flock", repeatable, func(ctx context.Context) error { return w.Engine.Flock(ctx, ino, owner, typ) })
}

func (w *serverWait) GetLk(ctx context.Context, ino Ino, owner LockOwner, l Lock) (got Lock, err error) {
	err = w.do(ctx, "getlk", repeatable, func(ctx context.Context) error {
		got, err = w.Engine.GetLk(ctx, ino, owner, l)
		return err
	})
	return got, err
}

func (w *serverWait) SetLk(ctx context.Context, ino Ino, owner LockOwner, l Lock) error {
	return w.do(ctx, "setlk", repeatable, func(ctx context.Context) error { return w.Engine.SetLk(ctx, ino, owner, l) })
}

func (w *serverWait) RmdirAt(ctx context.Context, cred Cred, parent Ino, name string) (changed int64, err error) {
	err = w.do(ctx, "rmdir", once, func(ctx context.Context) error {
		changed, err = RmdirAt(ctx, w.Engine, cred, parent, name)
		return err
	})
	return changed, err
}

func (w *serverWait) UnlinkDelete(ctx context.Context, cred Cred, parent Ino, name string, sid uint64, expect Ino) (ino Ino, a Attr, deleted bool, err error) {
	err = w.do(ctx, "unlink", once, func(ctx context.Context) error {
		ino, a, deleted, err = UnlinkDelete(ctx, w.Engine, cred, parent, name, sid, expect)
		return err
	})
	return ino, a, deleted, err
}
