package sql

import (
	"fmt"

	"cairn/meta"
)

// checkParents wants both parents to be directories the caller may
// search.
func (r *renameOp) checkParents() error {
	for _, p := range []*meta.Attr{r.spa, r.dpa} {
		if p == nil {
			return meta.ErrNotFound
		}
		if !p.IsDir() {
			return meta.ErrNotDir
		}
		if err := meta.Access(p, r.cred, meta.MayExec); err != nil {
			return err
		}
	}
	return nil
}

// checkEntries wants the source, and a destination as the flags ask:
// none for RENAME_NOREPLACE, one for RENAME_EXCHANGE.
func (r *renameOp) checkEntries() error {
	if !r.srcFound {
		return meta.ErrNotFound
	}
	if r.noReplace && r.dstFound {
		return meta.ErrExists
	}
	if r.exchange && !r.dstFound {
		return meta.ErrNotFound
	}
	return nil
}

// checkLoops refuses to move a directory under itself (EINVAL) or to
// replace an ancestor of the source (ENOTEMPTY; EINVAL for an exchange).
func (r *renameOp) checkLoops() error {
	if r.sp == r.dp {
		return nil
	}
	if r.src.IsDir() {
		if in, err := r.c.isAncestor(r.srcIno, r.dp); err != nil {
			return err
		} else if in {
			return meta.ErrInvalid
		}
	}
	if r.dstFound && r.dst.IsDir() {
		if in, err := r.c.isAncestor(r.dstIno, r.sp); err != nil {
			return err
		} else if in {
			if r.exchange {
				return meta.ErrInvalid
			}
			return meta.ErrNotEmpty
		}
	}
	return nil
}

// checkPermissions is vfs_rename's may_delete and may_create, the types a
// replacement must match, and the write permission a directory needs to
// change its "..".
func (r *renameOp) checkPermissions() error {
	if err := meta.MayDelete(r.spa, r.src, r.cred); err != nil {
		return err
	}
	if r.dstFound {
		if err := meta.MayDelete(r.dpa, r.dst, r.cred); err != nil {
			return err
		}
	} else if err := meta.Access(r.dpa, r.cred, meta.MayWrite|meta.MayExec); err != nil {
		return err
	}
	if r.dstFound && !r.exchange {
		if r.src.IsDir() && !r.dst.IsDir() {
			return meta.ErrNotDir
		}
		if !r.src.IsDir() && r.dst.IsDir() {
			return meta.ErrIsDir
		}
	}
	if r.sp != r.dp {
		if r.src.IsDir() {
			if err := meta.Access(r.src, r.cred, meta.MayWrite); err != nil {
				return err
			}
		}
		if r.exchange && r.dst.IsDir() {
			if err := meta.Access(r.dst, r.cred, meta.MayWrite); err != nil {
				return err
			}
		}
	}
	return nil
}

// isAncestor reports whether directory dir is dir itself or an ancestor of
// ino. Callers hold the cross-directory rename lock.
func (c *conn) isAncestor(dir, ino meta.Ino) (bool, error) {
	for i := 0; i < 1<<16; i++ {
		if ino == dir {
			return true, nil
		}
		if ino == meta.RootIno {
			return false, nil
		}
		a, err := c.getNode(ino, false)
		if err != nil {
			return false, err
		}
		ino = a.Parent
	}
	return false, fmt.Errorf("directory %d: parent chain too long, the tree may hold a loop: %w", ino, meta.ErrIO)
}

// checkEmptySource wants, with meta.RenameEmptyDir, the source to be a
// directory without entries. Entries are made under their directory's
// row lock, which lockInodes holds.
func (r *renameOp) checkEmptySource() error {
	if !r.emptyDir {
		return nil
	}
	if !r.src.IsDir() {
		return meta.ErrNotDir
	}
	return r.c.checkEmpty(r.srcIno)
}
