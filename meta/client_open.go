package meta

import (
	"context"
	"fmt"
)

// openInode counts this client's open handles of an inode and remembers
// whether the inode lost its last link while open.
type openInode struct {
	handles int
	orphan  bool
}

// Opened records one more open handle of ino.
func (c *Client) Opened(ino Ino) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o := c.open[ino]
	if o == nil {
		o = &openInode{}
		c.open[ino] = o
	}
	o.handles++
}

// IsOpen reports whether this client holds ino open.
func (c *Client) IsOpen(ino Ino) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.open[ino] != nil
}

// Closed records that a handle of ino was closed; on the last close of an
// inode that was unlinked meanwhile, its data is released, and released
// says so.
func (c *Client) Closed(ctx context.Context, ino Ino) (released bool, err error) {
	c.mu.Lock()
	o := c.open[ino]
	if o == nil {
		c.mu.Unlock()
		return false, nil
	}
	o.handles--
	if o.handles > 0 {
		c.mu.Unlock()
		return false, nil
	}
	delete(c.open, ino)
	sid := c.sid
	c.mu.Unlock()
	if !o.orphan {
		return false, nil
	}
	return true, c.releaseOrphan(ctx, sid, ino)
}

// orphaned is called when ino lost its last link: it is released now
// unless this client holds it open.
func (c *Client) orphaned(ctx context.Context, ino Ino) error {
	c.attrs.drop(ino)
	c.mu.Lock()
	sid := c.sid
	if o := c.open[ino]; o != nil {
		o.orphan = true
		c.mu.Unlock()
		return nil
	}
	c.mu.Unlock()
	return c.releaseOrphan(ctx, sid, ino)
}

func (c *Client) releaseOrphan(ctx context.Context, sid uint64, ino Ino) error {
	defer c.observe("release_orphan", now())
	c.attrs.drop(ino)
	if err := c.eng.ReleaseOrphan(ctx, sid, ino); err != nil {
		return fmt.Errorf("release unlinked inode %d: %w", ino, err)
	}
	return nil
}

// closedEntry is the inode this client's entry cache holds for
// parent/name when none of its handles holds that inode open, so that an
// unlink may delete it in the same commit (UnlinkDelete); 0 otherwise.
// As with Unlink and an immediate ReleaseOrphan, an open of the same
// inode by another thread of this mount that overlaps the unlink may get
// a handle of a file that is gone (the kernel does not order an open of
// an existing name with an unlink of it).
func (c *Client) closedEntry(parent Ino, name string) Ino {
	ino, ok := c.entries.get(parent, name)
	if !ok || ino == 0 {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.open[ino] != nil {
		return 0
	}
	return ino
}
