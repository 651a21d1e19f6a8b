package meta

import (
	"context"
	"errors"
	"log/slog"
)

// Rmdir removes an empty directory. With the trash on, it moves it into
// the trash instead, so that restore can rebuild the parents of what was
// in it: one Rename with RenameEmptyDir, which checks in its own
// transaction that the directory is empty. An entry another client adds
// to the directory meanwhile makes the rmdir fail with ENOTEMPTY, as on a
// local file system, rather than go into the trash with it; ENOTEMPTY
// and ENOTDIR from the move are the rmdir's answer.
//
// The inode, which names the trash entry, comes from this client's entry
// cache when it holds the name (the kernel looks a name up before it
// removes it), else from one Lookup. Another client may have put another
// directory under the name within the cache time: the move's answer
// tells, and the trash entry is renamed after the inode it holds.
//
// A directory its caller may not move (Linux lets anyone with write
// permission on the parent remove it, but a move needs write permission
// on the directory itself) is removed for good.
func (c *Client) Rmdir(ctx context.Context, cred Cred, parent Ino, name string) error {
	if parent == RootIno && name == TrashName {
		return ErrNotPermitted
	}
	if keep, err := c.keeping(ctx, parent); err != nil || !keep {
		if err != nil {
			return err
		}
		return c.rmdir(ctx, cred, parent, name)
	}
	ino, cached := c.entries.get(parent, name)
	cached = cached && ino != missingEntry
	for {
		if !cached {
			var a Attr
			var err error
			if ino, a, err = c.eng.Lookup(ctx, parent, name); err != nil || !a.IsDir() {
				return c.rmdir(ctx, cred, parent, name)
			}
		}
		var moved, hour Ino
		kept := TrashEntryName(parent, ino, name)
		ok, err := c.intoTrash(ctx, func(h Ino) (err error) {
			hour = h
			moved, _, _, err = c.rename(ctx, cred, parent, name, hour, kept, RenameNoReplace|RenameEmptyDir)
			return err
		})
		if ok && errors.Is(err, ErrExists) && cached {
			cached = false // the trash holds kept: ino may be stale
			continue
		}
		if !ok || errors.Is(err, ErrAccess) || errors.Is(err, ErrNotPermitted) || errors.Is(err, ErrExists) {
			return c.rmdir(ctx, cred, parent, name)
		}
		if err != nil {
			return err
		}
		if moved != ino {
			right := TrashEntryName(parent, moved, name)
			if _, _, _, err := c.rename(ctx, RootCred, hour, kept, hour, right, RenameNoReplace); err != nil {
				slog.Warn("rename a trash entry after the directory it holds", "entry", kept, "inode", moved, "err", err)
			}
		}
		return nil
	}
}
