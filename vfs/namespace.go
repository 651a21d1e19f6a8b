package vfs

import (
	"context"

	"cairn/meta"
)

// Entry is an inode found or made by a namespace operation.
type Entry struct {
	Ino  meta.Ino
	Attr meta.Attr
}

// Lookup finds name in parent.
func (v *VFS) Lookup(ctx context.Context, cred meta.Cred, parent meta.Ino, name string) (Entry, error) {
	if parent == v.Root() && name == StatsName {
		return Entry{Ino: StatsIno, Attr: statsAttr(0)}, nil
	}
	if e, ok, err := v.lookupUp(ctx, parent, name); ok {
		return e, err
	}
	ino, a, err := v.client.Lookup(ctx, cred, parent, name)
	if err != nil {
		return Entry{}, err
	}
	return Entry{Ino: ino, Attr: v.overlay(ino, a)}, nil
}

// GetAttr returns ino's attributes, including writes still buffered here.
func (v *VFS) GetAttr(ctx context.Context, ino meta.Ino) (meta.Attr, error) {
	if ino == StatsIno {
		return statsAttr(0), nil
	}
	a, err := v.client.GetAttr(ctx, ino)
	if err != nil {
		return meta.Attr{}, err
	}
	return v.overlay(ino, a), nil
}

// SetAttr changes the length (when size is not nil), then clears setuid
// and setgid as a write by cred does (set.ClearSetid, a round trip only
// when there is a bit to clear), then mode, owner and times of ino. fh,
// when not 0, is the handle the change came through (ftruncate).
func (v *VFS) SetAttr(ctx context.Context, cred meta.Cred, ino meta.Ino, set meta.SetAttr, size *uint64, fh uint64) (meta.Attr, error) {
	if ino == StatsIno {
		return meta.Attr{}, meta.ErrNotPermitted
	}
	if v.cfg.ReadOnly {
		return meta.Attr{}, meta.ErrReadOnly
	}
	var a meta.Attr
	var err error
	if size != nil {
		tcred := cred
		if h, herr := v.handle(fh); fh != 0 && herr == nil && h.ino == ino && h.writable() {
			// ftruncate needs a descriptor open for writing, not write
			// permission now: it was checked at open.
			tcred = meta.RootCred
		}
		if a, err = v.truncate(ctx, tcred, ino, *size); err != nil {
			return meta.Attr{}, err
		}
	}
	if set.ClearSetid {
		// A truncate by a caller without CAP_FSETID (the kernel says
		// which); after it, so that a refused truncate clears nothing.
		if size == nil {
			if a, err = v.client.GetAttr(ctx, ino); err != nil {
				return meta.Attr{}, err
			}
		}
		if a, err = v.clearSetid(ctx, cred, ino, a); err != nil {
			return meta.Attr{}, err
		}
		set.ClearSetid = false
	}
	if set.Mode != nil || set.Uid != nil || set.Gid != nil || set.Atime != nil || set.Mtime != nil || set.AtimeNow || set.MtimeNow {
		if set.Mtime != nil || set.MtimeNow {
			// Buffered writes must not overwrite the times set here.
			if f := v.lookupFile(ino); f != nil {
				if err := v.flush(ctx, f); err != nil {
					return meta.Attr{}, err
				}
			}
		}
		if a, err = v.client.SetAttr(ctx, cred, ino, set); err != nil {
			return meta.Attr{}, err
		}
	} else if size == nil {
		if a, err = v.client.GetAttr(ctx, ino); err != nil {
			return meta.Attr{}, err
		}
	}
	return v.overlay(ino, a), nil
}

// truncate commits f's buffered writes, then sets the length.
func (v *VFS) truncate(ctx context.Context, cred meta.Cred, ino meta.Ino, size uint64) (meta.Attr, error) {
	// The engine's check, asked early: EFBIG before the capacity's ENOSPC.
	if err := meta.CheckTruncate(size); err != nil {
		return meta.Attr{}, err
	}
	f := v.lookupFile(ino)
	if f != nil {
		if err := v.flush(ctx, f); err != nil {
			return meta.Attr{}, err
		}
	}
	if v.format.Capacity > 0 {
		old, err := v.client.GetAttr(ctx, ino)
		if err != nil {
			return meta.Attr{}, err
		}
		if size > old.Length {
			if err := v.haveSpace(ctx, size-old.Length); err != nil {
				return meta.Attr{}, err
			}
		}
	}
	a, err := v.client.Truncate(ctx, cred, ino, size)
	if err == nil {
		v.kickGC()
	}
	if f != nil {
		f.mu.Lock()
		f.invalidate(-1)
		if err == nil {
			f.length = a.Length
		}
		f.mu.Unlock()
	}
	return a, err
}

// haveSpace checks that n more bytes fit in the volume's capacity.
func (v *VFS) haveSpace(ctx context.Context, n uint64) error {
	if v.format.Capacity == 0 {
		return nil
	}
	u, err := v.client.Usage(ctx)
	if err != nil {
		return err
	}
	if u.Space+v.buffered()+n > v.format.Capacity {
		return meta.ErrNoSpace
	}
	return nil
}

// haveInode checks that one more inode fits in the volume's limits.
func (v *VFS) haveInode(ctx context.Context) error {
	if v.format.Inodes == 0 && v.format.Capacity == 0 {
		return nil
	}
	u, err := v.client.Usage(ctx)
	if err != nil {
		return err
	}
	if v.format.Inodes > 0 && u.Inodes >= v.format.Inodes {
		return meta.ErrNoSpace
	}
	if v.format.Capacity > 0 && u.Space >= v.format.Capacity {
		return meta.ErrNoSpace
	}
	return nil
}

// Mknod creates an inode of any type but symlink (see Symlink).
func (v *VFS) Mknod(ctx context.Context, cred meta.Cred, parent meta.Ino, name string, typ meta.FileType, mode uint16, rdev uint32) (Entry, error) {
	return v.mknod(ctx, cred, parent, name, typ, mode, rdev, "")
}

// Symlink creates parent/name pointing at target.
func (v *VFS) Symlink(ctx context.Context, cred meta.Cred, parent meta.Ino, name, target string) (Entry, error) {
	return v.mknod(ctx, cred, parent, name, meta.TypeSymlink, 0777, 0, target)
}

func (v *VFS) mknod(ctx context.Context, cred meta.Cred, parent meta.Ino, name string, typ meta.FileType, mode uint16, rdev uint32, target string) (Entry, error) {
	if v.cfg.ReadOnly {
		return Entry{}, meta.ErrReadOnly
	}
	if parent == v.Root() && name == StatsName {
		return Entry{}, meta.ErrExists
	}
	if err := v.haveInode(ctx); err != nil {
		return Entry{}, err
	}
	ino, a, err := v.client.Mknod(ctx, cred, parent, name, typ, mode, rdev, target)
	if err != nil {
		return Entry{}, err
	}
	return Entry{Ino: ino, Attr: a}, nil
}

// Link adds parent/name for ino.
func (v *VFS) Link(ctx context.Context, cred meta.Cred, ino, parent meta.Ino, name string) (Entry, error) {
	if v.cfg.ReadOnly {
		return Entry{}, meta.ErrReadOnly
	}
	if ino == StatsIno {
		return Entry{}, meta.ErrNotPermitted
	}
	if parent == v.Root() && name == StatsName {
		return Entry{}, meta.ErrExists
	}
	a, err := v.client.Link(ctx, cred, ino, parent, name)
	if err != nil {
		return Entry{}, err
	}
	return Entry{Ino: ino, Attr: v.overlay(ino, a)}, nil
}

// Unlink removes parent/name (not a directory).
func (v *VFS) Unlink(ctx context.Context, cred meta.Cred, parent meta.Ino, name string) error {
	if v.cfg.ReadOnly {
		return meta.ErrReadOnly
	}
	if parent == v.Root() && name == StatsName {
		return meta.ErrNotPermitted
	}
	_, a, err := v.client.Unlink(ctx, cred, parent, name)
	if err == nil && a.Nlink == 0 {
		v.kickGC()
	}
	return err
}

// Rmdir removes the empty directory parent/name.
func (v *VFS) Rmdir(ctx context.Context, cred meta.Cred, parent meta.Ino, name string) error {
	if v.cfg.ReadOnly {
		return meta.ErrReadOnly
	}
	if name == "." {
		return meta.ErrInvalid
	}
	if name == ".." {
		return meta.ErrNotEmpty
	}
	return v.client.Rmdir(ctx, cred, parent, name)
}

// Rename moves an entry with renameat2 flags.
func (v *VFS) Rename(ctx context.Context, cred meta.Cred, srcParent meta.Ino, srcName string, dstParent meta.Ino, dstName string, flags uint32) error {
	if v.cfg.ReadOnly {
		return meta.ErrReadOnly
	}
	if (srcParent == v.Root() && srcName == StatsName) || (dstParent == v.Root() && dstName == StatsName) {
		return meta.ErrNotPermitted
	}
	_, _, replaced, err := v.client.Rename(ctx, cred, srcParent, srcName, dstParent, dstName, flags)
	if err == nil && replaced != 0 {
		v.kickGC()
	}
	return err
}

// Readlink returns a symlink's target.
func (v *VFS) Readlink(ctx context.Context, ino meta.Ino) (string, error) {
	return v.client.Readlink(ctx, ino)
}

// Access checks access(2) for cred.
func (v *VFS) Access(ctx context.Context, cred meta.Cred, ino meta.Ino, mask uint32) error {
	if ino == StatsIno {
		if mask&(meta.MayWrite|meta.MayExec) != 0 {
			return meta.ErrAccess
		}
		return nil
	}
	if mask&meta.MayWrite != 0 && v.cfg.ReadOnly {
		return meta.ErrReadOnly
	}
	return v.client.Access(ctx, cred, ino, mask)
}
