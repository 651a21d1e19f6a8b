package meta

import (
	"context"
	"errors"
	"log/slog"
)

// Unlink removes a non-directory. With the trash on, a file with one
// link is moved into the trash instead (one atomic Rename); otherwise an
// inode that lost its last link is released now, or on its last local
// close when it is open here.
//
// What the move needs to know first (the inode, for the trash entry's
// name, and that it is a file of one link) comes from this client's
// caches when they hold the name and its attributes, fresh: the kernel
// looks a name up before it unlinks it, so the unlink costs no look-up of
// its own. Another client may have changed the name within the cache
// time; the rename's answer tells, and settleTrashMove puts right what
// the move did on the stale view.
func (c *Client) Unlink(ctx context.Context, cred Cred, parent Ino, name string) (Ino, Attr, error) {
	if keep, err := c.keeping(ctx, parent); err != nil || !keep {
		if err != nil {
			return 0, Attr{}, err
		}
		return c.unlink(ctx, cred, parent, name)
	}
	ino, a, cached := c.cachedEntry(parent, name)
	for {
		if !cached {
			var err error
			if ino, a, err = c.eng.Lookup(ctx, parent, name); err != nil {
				return c.unlink(ctx, cred, parent, name)
			}
		}
		if a.IsDir() || a.Nlink != 1 {
			return c.unlink(ctx, cred, parent, name)
		}
		var moved, hour Ino
		var attr Attr
		kept := TrashEntryName(parent, ino, name)
		ok, err := c.intoTrash(ctx, func(h Ino) (err error) {
			hour = h
			moved, attr, _, err = c.rename(ctx, cred, parent, name, hour, kept, RenameNoReplace)
			return err
		})
		if ok && errors.Is(err, ErrExists) && cached {
			cached = false // the trash holds kept: ino may be stale
			continue
		}
		if !ok || errors.Is(err, ErrExists) {
			if err != nil && !errors.Is(err, ErrExists) {
				return 0, Attr{}, err
			}
			return c.unlink(ctx, cred, parent, name)
		}
		if err != nil {
			return 0, Attr{}, err
		}
		if moved != ino || attr.IsDir() || attr.Nlink != 1 {
			return c.settleTrashMove(ctx, parent, name, hour, kept, moved, attr)
		}
		return moved, attr, nil
	}
}

// cachedEntry returns the inode and attributes this client holds, fresh,
// for parent/name.
func (c *Client) cachedEntry(parent Ino, name string) (Ino, Attr, bool) {
	ino, ok := c.entries.get(parent, name)
	if !ok {
		return 0, Attr{}, false
	}
	a, ok := c.attrs.get(ino)
	return ino, a, ok
}

// settleTrashMove puts right an unlink that moved parent/name into the
// trash as hour/kept on a view another client had changed: the name was
// a directory by now (moved back, and the unlink fails as on a
// directory), a file of several links (the trash's link goes: the file
// lives on under its other names), or another file of one link (its
// trash entry is named after the inode it holds, for restore). The
// application gets what unlink(2) gives on that view: EISDIR for the
// directory, success for the files; a failed repair is logged, never
// returned as an errno unlink does not give.
func (c *Client) settleTrashMove(ctx context.Context, parent Ino, name string, hour Ino, kept string, moved Ino, attr Attr) (Ino, Attr, error) {
	switch {
	case attr.IsDir():
		if _, _, _, err := c.rename(ctx, RootCred, hour, kept, parent, name, RenameNoReplace); err != nil {
			slog.Warn("move a directory, unlinked as a file, back from the trash", "inode", moved, "entry", kept, "err", err)
		}
		return 0, Attr{}, ErrIsDir
	case attr.Nlink != 1:
		ino, a, err := c.unlink(ctx, RootCred, hour, kept)
		if err != nil {
			slog.Warn("remove the trash link of a file that has other links", "inode", moved, "entry", kept, "err", err)
			return moved, attr, nil
		}
		return ino, a, nil
	}
	right := TrashEntryName(parent, moved, name)
	if _, _, _, err := c.rename(ctx, RootCred, hour, kept, hour, right, RenameNoReplace); err != nil {
		slog.Warn("rename a trash entry after the inode it holds", "entry", kept, "inode", moved, "err", err)
	}
	return moved, attr, nil
}
