package meta

import (
	"context"
	"time"
)

// The Engine methods of Tracker. Reads go to the current engine, counted there (read); each
// mutation goes through begin and end with the inodes it may change (see
// Tracker), and those it reports. A directory's entries changed by a call
// that does not report the child (Rmdir, RemoveEntries) are found by the
// migrator, which compares the directory's entries.

func (t *Tracker) Name() string { return t.Unwrap().Name() }
func (t *Tracker) Init(ctx context.Context, f Format, force bool) error {
	return t.Unwrap().Init(ctx, f, force)
}
func (t *Tracker) Load(ctx context.Context) (Format, error) {
	e := t.read()
	defer e.done()
	return e.engine.Load(ctx)
}
func (t *Tracker) Stats() Stats { return t.Unwrap().Stats() }

// Close closes the current engine.
func (t *Tracker) Close() error { return t.Unwrap().Close() }

func (t *Tracker) NewSession(ctx context.Context, info SessionInfo) (uint64, error) {
	return t.Unwrap().NewSession(ctx, info)
}
func (t *Tracker) Heartbeat(ctx context.Context, sid uint64) error {
	current := t.read()
	defer current.done()
	return current.engine.Heartbeat(ctx, current.session(sid))
}
func (t *Tracker) ListSessions(ctx context.Context) ([]SessionInfo, error) {
	e := t.read()
	defer e.done()
	return e.engine.ListSessions(ctx)
}
func (t *Tracker) Usage(ctx context.Context) (Usage, error) {
	e := t.read()
	defer e.done()
	return e.engine.Usage(ctx)
}
func (t *Tracker) Lookup(ctx context.Context, parent Ino, name string) (Ino, Attr, error) {
	e := t.read()
	defer e.done()
	return e.engine.Lookup(ctx, parent, name)
}
func (t *Tracker) GetAttr(ctx context.Context, ino Ino) (Attr, error) {
	e := t.read()
	defer e.done()
	return e.engine.GetAttr(ctx, ino)
}
func (t *Tracker) Readlink(ctx context.Context, ino Ino) (string, error) {
	e := t.read()
	defer e.done()
	return e.engine.Readlink(ctx, ino)
}
func (t *Tracker) Readdir(ctx context.Context, ino Ino, after string, limit int, plus bool) ([]Entry, error) {
	e := t.read()
	defer e.done()
	return e.engine.Readdir(ctx, ino, after, limit, plus)
}
func (t *Tracker) Read(ctx context.Context, ino Ino, idx uint32) ([]Slice, error) {
	e := t.read()
	defer e.done()
	return e.engine.Read(ctx, ino, idx)
}
func (t *Tracker) DeadSlices(ctx context.Context, limit int) ([]DeadSlice, error) {
	e := t.read()
	defer e.done()
	return e.engine.DeadSlices(ctx, limit)
}
func (t *Tracker) GetXattr(ctx context.Context, ino Ino, name string) ([]byte, error) {
	e := t.read()
	defer e.done()
	return e.engine.GetXattr(ctx, ino, name)
}
func (t *Tracker) ListXattr(ctx context.Context, ino Ino) ([]string, error) {
	e := t.read()
	defer e.done()
	return e.engine.ListXattr(ctx, ino)
}
func (t *Tracker) GetLk(ctx context.Context, ino Ino, owner LockOwner, l Lock) (Lock, error) {
	current := t.read()
	defer current.done()
	return current.engine.GetLk(ctx, ino, current.owner(owner), l)
}

// held runs a call that a pause holds but that changes no inode.
func held[R any](t *Tracker, ctx context.Context, call func(e *trackedEngine) (R, error)) (R, error) {
	m, err := t.enter(ctx, entryHeld, nil)
	if err != nil {
		var none R
		return none, err
	}
	defer t.end(ctx, m)
	return call(m.current)
}

func (t *Tracker) CloseSession(ctx context.Context, sid uint64) error {
	_, err := held(t, ctx, func(e *trackedEngine) (struct{}, error) {
		return struct{}{}, e.engine.CloseSession(ctx, e.session(sid))
	})
	return err
}
func (t *Tracker) CleanStaleSessions(ctx context.Context, before time.Time) (int, error) {
	return held(t, ctx, func(e *trackedEngine) (int, error) { return e.engine.CleanStaleSessions(ctx, before) })
}
func (t *Tracker) NextInodes(ctx context.Context, n uint64) (Ino, error) {
	return held(t, ctx, func(e *trackedEngine) (Ino, error) { return e.engine.NextInodes(ctx, n) })
}
func (t *Tracker) NextSlices(ctx context.Context, n uint64) (uint64, error) {
	return held(t, ctx, func(e *trackedEngine) (uint64, error) { return e.engine.NextSlices(ctx, n) })
}
func (t *Tracker) ForgetSlices(ctx context.Context, ids []uint64) error {
	_, err := held(t, ctx, func(e *trackedEngine) (struct{}, error) { return struct{}{}, e.engine.ForgetSlices(ctx, ids) })
	return err
}
func (t *Tracker) Flock(ctx context.Context, ino Ino, owner LockOwner, typ uint32) error {
	_, err := held(t, ctx, func(e *trackedEngine) (struct{}, error) {
		return struct{}{}, e.engine.Flock(ctx, ino, e.owner(owner), typ)
	})
	return err
}
func (t *Tracker) SetLk(ctx context.Context, ino Ino, owner LockOwner, l Lock) error {
	_, err := held(t, ctx, func(e *trackedEngine) (struct{}, error) {
		return struct{}{}, e.engine.SetLk(ctx, ino, e.owner(owner), l)
	})
	return err
}

// attrCall is a mutation of the inodes given that returns attributes.
func (t *Tracker) attrCall(ctx context.Context, call func(e Engine) (Attr, error), inodes ...Ino) (Attr, error) {
	m, err := t.begin(ctx, inodes...)
	if err != nil {
		return Attr{}, err
	}
	defer t.end(ctx, m)
	return call(m.engine)
}

func (t *Tracker) SetAttr(ctx context.Context, cred Cred, ino Ino, set SetAttr) (Attr, error) {
	return t.attrCall(ctx, func(e Engine) (Attr, error) { return e.SetAttr(ctx, cred, ino, set) }, ino)
}
func (t *Tracker) Truncate(ctx context.Context, cred Cred, ino Ino, length uint64) (Attr, error) {
	return t.attrCall(ctx, func(e Engine) (Attr, error) { return e.Truncate(ctx, cred, ino, length) }, ino)
}
func (t *Tracker) Fallocate(ctx context.Context, cred Cred, ino Ino, mode uint8, off, size uint64) (Attr, error) {
	return t.attrCall(ctx, func(e Engine) (Attr, error) { return e.Fallocate(ctx, cred, ino, mode, off, size) }, ino)
}
func (t *Tracker) Mknod(ctx context.Context, cred Cred, parent Ino, name string, ino Ino, typ FileType, mode uint16, rdev uint32, target string) (Attr, error) {
	return t.attrCall(ctx, func(e Engine) (Attr, error) {
		return e.Mknod(ctx, cred, parent, name, ino, typ, mode, rdev, target)
	}, parent, ino)
}
func (t *Tracker) Link(ctx context.Context, cred Cred, ino Ino, parent Ino, name string) (Attr, error) {
	return t.attrCall(ctx, func(e Engine) (Attr, error) { return e.Link(ctx, cred, ino, parent, name) }, ino, parent)
}

func (t *Tracker) Unlink(ctx context.Context, cred Cred, parent Ino, name string, sid uint64) (Ino, Attr, error) {
	m, err := t.begin(ctx, parent)
	if err != nil {
		return 0, Attr{}, err
	}
	ino, a, err := m.engine.Unlink(ctx, cred, parent, name, m.current.session(sid))
	t.end(ctx, m, ino)
	return ino, a, err
}

func (t *Tracker) Rmdir(ctx context.Context, cred Cred, parent Ino, name string) error {
	m, err := t.begin(ctx, parent)
	if err != nil {
		return err
	}
	defer t.end(ctx, m)
	return m.engine.Rmdir(ctx, cred, parent, name)
}

func (t *Tracker) Rename(ctx context.Context, cred Cred, srcParent Ino, srcName string, dstParent Ino, dstName string, flags uint32, sid uint64) (Ino, Attr, Ino, error) {
	m, err := t.begin(ctx, srcParent, dstParent)
	if err != nil {
		return 0, Attr{}, 0, err
	}
	moved, a, replaced, err := m.engine.Rename(ctx, cred, srcParent, srcName, dstParent, dstName, flags, m.current.session(sid))
	t.end(ctx, m, moved, replaced)
	return moved, a, replaced, err
}

func (t *Tracker) ReleaseOrphan(ctx context.Context, sid uint64, ino Ino) error {
	m, err := t.begin(ctx, ino)
	if err != nil {
		return err
	}
	defer t.end(ctx, m)
	return m.engine.ReleaseOrphan(ctx, m.current.session(sid), ino)
}

func (t *Tracker) Write(ctx context.Context, ino Ino, idx uint32, s Slice, mtime int64) (Attr, int, error) {
	m, err := t.begin(ctx, ino)
	if err != nil {
		return Attr{}, 0, err
	}
	defer t.end(ctx, m)
	return m.engine.Write(ctx, ino, idx, s, mtime)
}

func (t *Tracker) Compact(ctx context.Context, ino Ino, idx uint32, old []Slice, s Slice) error {
	m, err := t.begin(ctx, ino)
	if err != nil {
		return err
	}
	defer t.end(ctx, m)
	return m.engine.Compact(ctx, ino, idx, old, s)
}

func (t *Tracker) SetXattr(ctx context.Context, cred Cred, ino Ino, name string, value []byte, flags uint32) error {
	_, err := t.attrCall(ctx, func(e Engine) (Attr, error) { return Attr{}, e.SetXattr(ctx, cred, ino, name, value, flags) }, ino)
	return err
}
func (t *Tracker) RemoveXattr(ctx context.Context, cred Cred, ino Ino, name string) error {
	_, err := t.attrCall(ctx, func(e Engine) (Attr, error) { return Attr{}, e.RemoveXattr(ctx, cred, ino, name) }, ino)
	return err
}

// RmdirAt is tracked as Rmdir.
func (t *Tracker) RmdirAt(ctx context.Context, cred Cred, parent Ino, name string) (int64, error) {
	m, err := t.begin(ctx, parent)
	if err != nil {
		return 0, err
	}
	defer t.end(ctx, m)
	return RmdirAt(ctx, m.engine, cred, parent, name)
}

// UnlinkDelete is tracked as Unlink; through UnlinkDelete so that an
// engine without the capability gets a plain Unlink.
func (t *Tracker) UnlinkDelete(ctx context.Context, cred Cred, parent Ino, name string, sid uint64, expect Ino) (Ino, Attr, bool, error) {
	m, err := t.begin(ctx, parent)
	if err != nil {
		return 0, Attr{}, false, err
	}
	ino, a, deleted, err := UnlinkDelete(ctx, m.engine, cred, parent, name, m.current.session(sid), expect)
	t.end(ctx, m, ino)
	return ino, a, deleted, err
}

// RemoveEntries: the removed children are found by the migrator's
// comparison of parent's entries.
func (t *Tracker) RemoveEntries(ctx context.Context, cred Cred, parent Ino, names []string, sid uint64) (BatchRemoval, error) {
	m, err := t.begin(ctx, parent)
	if err != nil {
		return BatchRemoval{}, err
	}
	defer t.end(ctx, m)
	r, ok := Capability[BatchRemover](m.engine)
	if !ok {
		return BatchRemoval{}, ErrNotSupported
	}
	return r.RemoveEntries(ctx, cred, parent, names, m.current.session(sid))
}

func (t *Tracker) Clone(ctx context.Context, cred Cred, src, parent Ino, name string, ino Ino, preserve bool) (Attr, error) {
	return t.attrCall(ctx, func(e Engine) (Attr, error) {
		c, ok := Capability[Cloner](e)
		if !ok {
			return Attr{}, ErrNotSupported
		}
		return c.Clone(ctx, cred, src, parent, name, ino, preserve)
	}, parent, ino)
}

var (
	_ Engine        = (*Tracker)(nil)
	_ UnlinkDeleter = (*Tracker)(nil)
	_ RmdirTimer    = (*Tracker)(nil)
	_ BatchRemover  = (*Tracker)(nil)
	_ Cloner        = (*Tracker)(nil)
)
