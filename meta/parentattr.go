package meta

// The rules below say what a directory's attributes become when an entry
// is added to it or taken from it, so that a client can know them from
// the answer of the change instead of asking the engine again (the kernel
// asks for them right after every create, mkdir, link, unlink, rename and
// rmdir). Every engine applies the same rule in its own transaction: the
// directory's mtime and ctime become the time of the change, which is the
// ctime the engine returns for the entry's inode (or the time RmdirAt
// returns), and a subdirectory's ".." counts as one of the directory's
// links. metatest holds each engine to it.

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

// ParentAfterRmdir is directory parent's attributes after Rmdir took a
// subdirectory from it at time changed (RmdirTimer): its ".." no longer
// counts as one of parent's links.
func ParentAfterRmdir(parent Attr, changed int64) Attr {
	parent.Mtime, parent.Ctime = changed, changed
	parent.Nlink--
	return parent
}

// ParentAfterRename is directory parent's attributes after Rename moved
// an entry out of it (out), into it (in), or within it (both); moved is
// the attributes Rename returned for the inode it moved. It holds only
// for a rename that replaced nothing or a non-directory (the answer does
// not say whether an empty directory was replaced, which takes one link
// from the destination) and that changed something (two names of one
// inode are left alone): see RenameDerivable.
func ParentAfterRename(parent, moved Attr, out, in bool) Attr {
	parent.Mtime, parent.Ctime = moved.Ctime, moved.Ctime
	if moved.IsDir() && out != in {
		if out {
			parent.Nlink--
		} else {
			parent.Nlink++
		}
	}
	return parent
}

// RenameDerivable reports whether ParentAfterRename holds for a rename of
// srcParent/srcName to dstParent/dstName with flags that moved an inode
// whose attributes are now moved. An exchange swaps two inodes of which
// the answer describes one; without RenameNoReplace a directory may have
// replaced an empty one, and a file of several links may have been
// renamed onto another of its names, which changes nothing.
func RenameDerivable(srcParent Ino, srcName string, dstParent Ino, dstName string, flags uint32, moved Attr) bool {
	switch {
	case flags&RenameExchange != 0:
		return false
	case srcParent == dstParent && srcName == dstName:
		return false
	case flags&RenameNoReplace != 0:
		return true
	}
	return !moved.IsDir() && moved.Nlink == 1
}
