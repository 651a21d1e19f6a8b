package fuse

import (
	gofuse "github.com/hanwen/go-fuse/v2/fuse"

	"cairn/meta"
	"cairn/vfs"
)

// Notifier tells the kernel to forget names and attributes of a mount
// that changed behind its back (work done for a command through the
// mount's control channel), so that they show at once through the mount.
// The kernel answers ENOENT for what it holds no longer, which is fine.
type Notifier struct {
	srv *gofuse.Server
	fs  *FS // for its node ids only
}

// NewNotifier notifies the kernel through srv, serving v.
func NewNotifier(srv *gofuse.Server, v *vfs.VFS) *Notifier {
	return &Notifier{srv: srv, fs: &FS{root: v.Root()}}
}

// Entry forgets the name parent/name and what was cached below it.
func (n *Notifier) Entry(parent meta.Ino, name string) {
	n.srv.EntryNotify(n.fs.node(parent), name)
}

// Inode forgets ino's attributes and, for a directory, its cached listing.
func (n *Notifier) Inode(ino meta.Ino) {
	n.srv.InodeNotify(n.fs.node(ino), 0, 0)
}
