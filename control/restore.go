package control

import (
	"errors"
	"fmt"
	"sync/atomic"

	"cairn/meta"
)

// restore puts a trash folder's entries, or one entry, back where they
// were deleted from. The restorer works as root, so only root may ask.
func (c *call) restore() (any, error) {
	shown := c.shown()
	if c.cred.Uid != 0 {
		return nil, fmt.Errorf("%s: %w: restoring from the trash needs root (run the command with sudo)", shown, meta.ErrNotPermitted)
	}
	if err := c.writable(); err != nil {
		return nil, err
	}
	at, err := c.resolveShown(c.req.Path, shown)
	if err != nil {
		return nil, err
	}
	inFolder := func(ino meta.Ino) bool { return meta.IsTrashIno(ino) && ino != meta.TrashIno }
	var folder meta.Ino
	var entry string
	switch {
	case inFolder(at.ino):
		folder = at.ino
	case inFolder(at.parent):
		folder, entry = at.parent, at.name
	default:
		return nil, fmt.Errorf("%s: %w", shown, meta.ErrNotInTrash)
	}
	var done RestoreResult
	var restored, skipped atomic.Int64
	r := c.v.Client().NewTrashRestorer()
	r.Restored = func(e string, parent meta.Ino, name string) {
		restored.Add(1)
		c.line(false, "restored %s as %q in directory inode %d", e, name, parent)
		c.changed(parent, name)
		c.changed(folder, e)
	}
	r.Skipped = func(e, reason string) {
		skipped.Add(1)
		c.line(true, "skipped %s: %s", e, reason)
	}
	c.watch(func() any { return Count{Inodes: restored.Load()} })
	if entry == "" {
		err = r.RestoreFolder(c.ctx, folder)
	} else {
		err = r.Restore(c.ctx, folder, entry)
	}
	done.Restored, done.Skipped = restored.Load(), skipped.Load()
	if errors.Is(err, meta.ErrNotFound) {
		return nil, fmt.Errorf("%s: not in the trash (restored already, or purged)", shown)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", shown, err)
	}
	return done, nil
}
