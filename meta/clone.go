package meta

import (
	"context"
	"fmt"
)

// Cloner is an optional interface of an engine (find it with Capability):
// copy-on-write copies that share the stored blocks.
type Cloner interface {
	// Clone makes inode ino (from NextInodes) a copy of inode src, named
	// name in directory parent, in one transaction: the attributes as
	// CloneAttr makes them, a symbolic link's target, a regular file's
	// slice lists record for record with one more reference to every
	// slice they name (so that deleting either copy frees no block the
	// other uses, and a slice reaches DeadSlices only when its last user
	// goes), and with preserve the extended attributes. A directory is
	// copied empty: a tree is copied inode by inode (CloneTree). Usage
	// grows by the copy's inode and space, and the copy fails with
	// ErrNoSpace past the volume's limits.
	//
	// Errors: ErrExists when name exists in parent; ErrNotFound when src
	// or parent does not exist (or was removed); ErrNotDir when parent is
	// not a directory; ErrAccess or ErrNotPermitted as CloneAttr and
	// a create in parent would fail. Safe to call concurrently with any
	// other operation; a conflict is retried inside the engine.
	Clone(ctx context.Context, cred Cred, src, parent Ino, name string, ino Ino, preserve bool) (Attr, error)
}

// CloneAttr is the attributes of a copy of src made by cred in a
// directory with attributes parent at time now (nanoseconds), and the
// check that cred may make it: cred must be able to read src (and search
// it, for a directory). With preserve the copy keeps src's owner, group,
// mode and times (ctime is now, as for any new inode), which only the
// superuser or src's owner who is in src's group may ask (else
// ErrNotPermitted, where 'cp -p' would silently drop the owner). Without
// it the copy is cred's as a new inode would be (the parent's setgid
// group rule included), with src's mode less setuid and setgid, and
// times of now. The link count is a new inode's; Parent is left for the
// engine to set.
func CloneAttr(src, parent *Attr, cred Cred, preserve bool, now int64) (Attr, error) {
	mask := uint32(MayRead)
	if src.IsDir() {
		mask |= MayExec
	}
	if src.Type != TypeSymlink {
		if err := Access(src, cred, mask); err != nil {
			return Attr{}, err
		}
	}
	if !preserve {
		a := InitAttr(parent, cred, src.Type, src.Mode&^06000, src.Rdev, now)
		if !src.IsDir() {
			a.Length = src.Length
		}
		return a, nil
	}
	if cred.Uid != 0 && (cred.Uid != src.Uid || !cred.InGroup(src.Gid)) {
		return Attr{}, fmt.Errorf("keep the owner %d:%d of a copy: %w", src.Uid, src.Gid, ErrNotPermitted)
	}
	a := *src
	a.Nlink, a.Parent, a.Ctime = 1, 0, now
	if a.IsDir() {
		a.Nlink, a.Length = 2, 4096
	}
	return a, nil
}
