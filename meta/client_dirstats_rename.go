package meta

import (
	"context"
	"errors"
)

// renameCounts prepares the statistics of a rename onto dstParent/dstName
// (old is the inode the entry cache has there, if any) and returns what
// counts them once the rename succeeded. It needs what the rename
// replaces: from the attribute cache, else from one Lookup (a rename's
// only added round trip, and only when the kernel's look-up of the
// target did not come through this client).
func (c *Client) renameCounts(ctx context.Context, dstParent Ino, dstName string, old Ino, flags uint32) func(moved Ino, attr *Attr, srcParent Ino) {
	if !c.stats.on() {
		return func(Ino, *Attr, Ino) {}
	}
	var victim Attr
	found := false
	if flags&RenameNoReplace == 0 {
		if old != 0 {
			victim, found = c.attrs.peek(old)
		}
		if !found {
			ino, a, err := c.eng.Lookup(ctx, dstParent, dstName)
			if err == nil {
				old, victim, found = ino, a, true
			} else if !errors.Is(err, ErrNotFound) {
				found = false
			}
		}
	}
	return func(moved Ino, attr *Attr, srcParent Ino) {
		if found && old == moved {
			return // a rename onto another name of the same inode does nothing
		}
		entry := entryOf(attr)
		c.stats.add(srcParent, negative(entry))
		c.stats.add(dstParent, entry)
		c.stats.forgetParent(srcParent, moved)
		c.stats.reached(dstParent, moved, attr)
		if !found {
			return
		}
		gone := entryOf(&victim)
		c.stats.add(dstParent, negative(gone))
		if flags&RenameExchange != 0 {
			c.stats.add(srcParent, gone)
			c.stats.forgetParent(dstParent, old)
			c.stats.reached(srcParent, old, &victim)
			return
		}
		c.stats.forgetParent(dstParent, old)
		if victim.IsDir() {
			c.stats.gone(old)
		}
	}
}
