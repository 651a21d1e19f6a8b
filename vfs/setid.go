package vfs

import (
	"context"
	"errors"

	"cairn/meta"
)

// ClearSetid takes setuid and setgid away from the file open as fh before
// cred writes to it, as meta.ModeAfterWrite says; the kernel asks for it on
// the writes of callers without CAP_FSETID. The bits go at the write(2)
// itself, durably, not when the buffered data is committed. It costs a
// round trip only when the attributes this client last saw have a bit to
// clear: open reads them afresh, so a bit another client set after that
// open is missed, as its other changes are (close-to-open); the engine
// decides again on its own copy.
func (v *VFS) ClearSetid(ctx context.Context, cred meta.Cred, fh uint64) error {
	h, err := v.handle(fh)
	if err != nil {
		return err
	}
	if h.file == nil || !h.writable() {
		return nil // Write refuses these
	}
	a, ok := v.client.LastAttr(h.ino)
	if !ok {
		if a, err = v.client.GetAttr(ctx, h.ino); err != nil {
			return err
		}
	}
	_, err = v.clearSetid(ctx, cred, h.ino, a)
	return err
}

// clearSetid asks the engine to clear what meta.ModeAfterWrite clears from
// ino, whose attributes are a as far as this client knows, and returns the
// attributes after; no round trip when there is nothing to clear. The
// kernel's copy of the mode is dropped, so that a stat after the write
// sees the change.
func (v *VFS) clearSetid(ctx context.Context, cred meta.Cred, ino meta.Ino, a meta.Attr) (meta.Attr, error) {
	if meta.ModeAfterWrite(&a, cred) == a.Mode {
		return a, nil
	}
	a, err := v.client.SetAttr(ctx, cred, ino, meta.SetAttr{ClearSetid: true})
	if err != nil {
		return meta.Attr{}, err
	}
	v.mu.Lock()
	inval := v.invalidate
	v.mu.Unlock()
	if inval != nil {
		inval(ino)
	}
	return a, nil
}

// KeepOwner is chown(ino, -1, -1) by cred, which Linux lets only root and
// the owner do and which clears setuid and setgid as any chown does
// (meta.ModeAfterChown). For anyone else it changes nothing and is no
// error: through FUSE it looks the same as the kernel's notice that a
// write by cred is coming (see fuse's SetAttr), which must not fail.
func (v *VFS) KeepOwner(ctx context.Context, cred meta.Cred, ino meta.Ino) (meta.Attr, error) {
	a, err := v.client.GetAttr(ctx, ino)
	if err != nil {
		return meta.Attr{}, err
	}
	if (cred.Uid != 0 && cred.Uid != a.Uid) || meta.ModeAfterChown(&a, cred) == a.Mode || v.cfg.ReadOnly {
		return v.overlay(ino, a), nil
	}
	uid := a.Uid
	b, err := v.client.SetAttr(ctx, cred, ino, meta.SetAttr{Uid: &uid})
	if errors.Is(err, meta.ErrNotPermitted) {
		return v.overlay(ino, a), nil // the owner changed since a was read
	}
	if err != nil {
		return meta.Attr{}, err
	}
	return v.overlay(ino, b), nil
}
