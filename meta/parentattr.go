package meta

// The rules below say what a directory's attributes become when an entry
// is added to it or taken from it, so that a client can know them from
// the answer of the change instead of asking the engine again (the kernel
// asks for them right after every create, mkdir, link and unlink). Every
// engine applies the same rule in its own transaction: the directory's
// mtime and ctime become the time of the change, which is the ctime the
// engine returns for the entry's inode, and a subdirectory's ".." counts
// as one of the directory's links. metatest holds each engine to it.

// ParentAfterAdd is directory parent's attributes after an entry for an
// inode whose attributes are now child was added to it (Mknod, Link).
func ParentAfterAdd(parent, child Attr) Attr {
	parent.Mtime, parent.Ctime = child.Ctime, child.Ctime
	if child.IsDir() {
		parent.Nlink++
	}
	return parent
}

// ParentAfterUnlink is directory parent's attributes after Unlink took an
// entry from it; child is the attributes Unlink returned for its inode.
func ParentAfterUnlink(parent, child Attr) Attr {
	parent.Mtime, parent.Ctime = child.Ctime, child.Ctime
	return parent
}
