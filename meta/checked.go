package meta

import (
	"context"
	"fmt"
)

// Checked returns e behind the argument checks of check.go: a call with
// an argument they refuse fails there, with the errno Linux returns, and
// never reaches e. engines.Open returns every engine this way, and the
// conformance suite tests engines this way, so engines may assume their
// arguments passed these checks. Every other method, and Describe when e
// has one, goes straight to e.
func Checked(e Engine) Engine {
	if c, ok := e.(checked); ok {
		return c
	}
	return checked{e}
}

// checked is an Engine behind the argument checks.
type checked struct{ Engine }

// Unwrap returns the engine behind the checks.
func (c checked) Unwrap() Engine { return c.Engine }

// Describe passes on the engine's description, if it has one.
func (c checked) Describe() map[string]string {
	if d, ok := c.Engine.(Describer); ok {
		return d.Describe()
	}
	return nil
}

// refused gives a refused call's error its context.
func refused(op string, arg any, err error) error {
	return fmt.Errorf("%s %q: %w", op, arg, err)
}

func (c checked) Lookup(ctx context.Context, parent Ino, name string) (Ino, Attr, error) {
	if err := CheckName(name); err != nil {
		return 0, Attr{}, refused("lookup", name, err)
	}
	return c.Engine.Lookup(ctx, parent, name)
}

func (c checked) Truncate(ctx context.Context, cred Cred, ino Ino, length uint64) (Attr, error) {
	if err := CheckTruncate(length); err != nil {
		return Attr{}, fmt.Errorf("truncate to %d bytes: %w", length, err)
	}
	return c.Engine.Truncate(ctx, cred, ino, length)
}

func (c checked) Fallocate(ctx context.Context, cred Cred, ino Ino, mode uint8, off, size uint64) (Attr, error) {
	if err := CheckFallocate(mode, off, size); err != nil {
		return Attr{}, fmt.Errorf("fallocate mode %#x of [%d, +%d): %w", mode, off, size, err)
	}
	return c.Engine.Fallocate(ctx, cred, ino, mode, off, size)
}

func (c checked) Mknod(ctx context.Context, cred Cred, parent Ino, name string, ino Ino, typ FileType, mode uint16, rdev uint32, target string) (Attr, error) {
	if err := CheckMknod(name, ino, typ, target); err != nil {
		return Attr{}, fmt.Errorf("create %q (type %d, inode %d, target of %d bytes): %w", name, typ, ino, len(target), err)
	}
	return c.Engine.Mknod(ctx, cred, parent, name, ino, typ, mode, rdev, target)
}

func (c checked) Link(ctx context.Context, cred Cred, ino Ino, parent Ino, name string) (Attr, error) {
	if err := CheckName(name); err != nil {
		return Attr{}, refused("link", name, err)
	}
	return c.Engine.Link(ctx, cred, ino, parent, name)
}

func (c checked) Unlink(ctx context.Context, cred Cred, parent Ino, name string, sid uint64) (Ino, Attr, error) {
	if err := CheckName(name); err != nil {
		return 0, Attr{}, refused("unlink", name, err)
	}
	return c.Engine.Unlink(ctx, cred, parent, name, sid)
}

func (c checked) Rmdir(ctx context.Context, cred Cred, parent Ino, name string) error {
	if err := CheckName(name); err != nil {
		return refused("rmdir", name, err)
	}
	return c.Engine.Rmdir(ctx, cred, parent, name)
}

func (c checked) Rename(ctx context.Context, cred Cred, srcParent Ino, srcName string, dstParent Ino, dstName string, flags uint32, sid uint64) (Ino, Attr, Ino, error) {
	if err := CheckRename(srcName, dstName, flags); err != nil {
		return 0, Attr{}, 0, fmt.Errorf("rename %q to %q (flags %#x): %w", srcName, dstName, flags, err)
	}
	return c.Engine.Rename(ctx, cred, srcParent, srcName, dstParent, dstName, flags, sid)
}

func (c checked) GetXattr(ctx context.Context, ino Ino, name string) ([]byte, error) {
	if err := CheckXattrName(name); err != nil {
		return nil, refused("getxattr", name, err)
	}
	return c.Engine.GetXattr(ctx, ino, name)
}

func (c checked) SetXattr(ctx context.Context, cred Cred, ino Ino, name string, value []byte, flags uint32) error {
	if err := CheckSetXattr(name, value, flags); err != nil {
		return fmt.Errorf("setxattr %q (value of %d bytes, flags %#x): %w", name, len(value), flags, err)
	}
	return c.Engine.SetXattr(ctx, cred, ino, name, value, flags)
}

func (c checked) RemoveXattr(ctx context.Context, cred Cred, ino Ino, name string) error {
	if err := CheckXattrName(name); err != nil {
		return refused("removexattr", name, err)
	}
	return c.Engine.RemoveXattr(ctx, cred, ino, name)
}

func (c checked) Flock(ctx context.Context, ino Ino, owner LockOwner, typ uint32) error {
	if err := CheckFlock(typ); err != nil {
		return fmt.Errorf("flock type %d: %w", typ, err)
	}
	return c.Engine.Flock(ctx, ino, owner, typ)
}

func (c checked) GetLk(ctx context.Context, ino Ino, owner LockOwner, l Lock) (Lock, error) {
	if err := CheckGetLk(l); err != nil {
		return Lock{}, fmt.Errorf("getlk %+v: %w", l, err)
	}
	return c.Engine.GetLk(ctx, ino, owner, l)
}

func (c checked) SetLk(ctx context.Context, ino Ino, owner LockOwner, l Lock) error {
	if err := CheckSetLk(l); err != nil {
		return fmt.Errorf("setlk %+v: %w", l, err)
	}
	return c.Engine.SetLk(ctx, ino, owner, l)
}

func (c checked) RmdirAt(ctx context.Context, cred Cred, parent Ino, name string) (int64, error) {
	if err := CheckName(name); err != nil {
		return 0, refused("rmdir", name, err)
	}
	return RmdirAt(ctx, c.Engine, cred, parent, name)
}

func (c checked) UnlinkDelete(ctx context.Context, cred Cred, parent Ino, name string, sid uint64, expect Ino) (Ino, Attr, bool, error) {
	if err := CheckName(name); err != nil {
		return 0, Attr{}, false, refused("unlink", name, err)
	}
	return UnlinkDelete(ctx, c.Engine, cred, parent, name, sid, expect)
}
