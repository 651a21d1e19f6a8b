package fuse

import (
	gofuse "github.com/hanwen/go-fuse/v2/fuse"

	"cairn/meta"
)

// The kernel addresses the mount's root as node 1 (FUSE_ROOT_ID). When the
// VFS serves a sub-directory (mount --subdir), node 1 stands for that
// directory's inode and the directory's inode number stands for inode 1,
// a swap that keeps node ids one-to-one with inodes. Inode 1 is never
// reachable below the sub-directory, so the kernel never sees it. The
// attributes keep the real inode numbers (st_ino), so that tools which
// stat a path find the inode the engine knows.

// ino is the inode the kernel's node id stands for.
func (fs *FS) ino(node uint64) meta.Ino {
	switch meta.Ino(node) {
	case gofuse.FUSE_ROOT_ID:
		return fs.root
	case fs.root:
		return meta.RootIno
	}
	return meta.Ino(node)
}

// node is the kernel's node id for ino.
func (fs *FS) node(ino meta.Ino) uint64 {
	switch ino {
	case fs.root:
		return gofuse.FUSE_ROOT_ID
	case meta.RootIno:
		return uint64(fs.root)
	}
	return uint64(ino)
}
