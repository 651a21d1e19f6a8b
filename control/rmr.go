package control

import (
	"fmt"
	"sync/atomic"

	"cairn/meta"
	"cairn/vfs"
)

// defaultThreads is rmr's removals in flight when the request names none.
const defaultThreads = 64

// rmr removes a tree as the caller: into the trash with one rename when
// the volume keeps one, else inode by inode, reporting the count.
func (c *call) rmr() (any, error) {
	if err := c.writable(); err != nil {
		return nil, err
	}
	shown := c.shown()
	at, err := c.resolveShown(c.req.Path, shown)
	switch {
	case err != nil:
		return nil, err
	case at.parent == 0:
		return nil, fmt.Errorf("%s is the root of its mount: remove what is in it instead", shown)
	case at.ino == meta.TrashIno:
		return nil, fmt.Errorf("%s is the trash, which stays: remove its hour folders, or empty it with 'cairn config META-URL --trash-days 0'", shown)
	case at.ino == vfs.StatsIno:
		return nil, fmt.Errorf("%s is the mount's statistics file, which stays", shown)
	}
	defer c.changed(at.parent, at.name)
	client := c.v.Client()
	moved, err := client.MoveToTrash(c.ctx, c.cred, at.parent, at.name)
	switch {
	case err != nil:
		return nil, fmt.Errorf("move %s into the trash: %w", shown, err)
	case moved:
		return Count{Inodes: 1}, nil
	case !at.attr.IsDir():
		if _, _, err := client.Unlink(c.ctx, c.cred, at.parent, at.name); err != nil {
			return nil, fmt.Errorf("remove %s: %w", shown, err)
		}
		return Count{Inodes: 1}, nil
	}
	threads := c.req.Threads
	if threads < 1 {
		threads = defaultThreads
	}
	var removed atomic.Int64
	c.watch(func() any { return Count{Inodes: removed.Load()} })
	if err := client.RemoveTree(c.ctx, c.cred, at.parent, at.name, at.ino, threads, &removed); err != nil {
		return nil, fmt.Errorf("remove %s: %w", shown, err)
	}
	return Count{Inodes: removed.Load()}, nil
}

// changed tells the kernel that parent/name and parent changed.
func (c *call) changed(parent meta.Ino, name string) {
	if c.notify == nil {
		return
	}
	c.notify.Entry(parent, name)
	c.notify.Inode(parent)
}
