package kv

import (
	"context"
	"fmt"

	"cairn/meta"
)

func (e *Engine) Rename(ctx context.Context, cred meta.Cred, srcParent meta.Ino, srcName string, dstParent meta.Ino, dstName string, flags uint32, sid uint64) (meta.Ino, meta.Attr, meta.Ino, error) {
	var moved, replaced meta.Ino
	var attr meta.Attr
	err := e.txn(ctx, func(t *txn) error {
		r := renameOp{t: t, cred: cred, sp: srcParent, sn: srcName, dp: dstParent, dn: dstName, flags: flags, sid: sid}
		err := r.run()
		moved, attr, replaced = r.src, r.sa, r.replaced
		return err
	})
	if err != nil {
		return 0, attr, 0, fmt.Errorf("rename %q in inode %d to %q in inode %d: %w", srcName, srcParent, dstName, dstParent, err)
	}
	return moved, attr, replaced, nil
}

// renameOp is one attempt of a rename, checked in the order Linux's
// renameat2 checks.
type renameOp struct {
	t        *txn
	cred     meta.Cred
	sp, dp   meta.Ino
	sn, dn   string
	flags    uint32
	sid      uint64
	spa, dpa meta.Attr // parents; the same inode when sp == dp
	src, dst meta.Ino
	sa, da   meta.Attr
	replaced meta.Ino
}

func (r *renameOp) run() error {
	t := r.t
	if err := t.prefetch(t.k.attr(r.sp), t.k.attr(r.dp), t.k.entry(r.sp, r.sn), t.k.entry(r.dp, r.dn)); err != nil {
		return err
	}
	var err error
	if r.spa, err = t.dir(r.sp); err != nil {
		return err
	}
	if r.dpa, err = t.dir(r.dp); err != nil {
		return err
	}
	for _, pa := range []*meta.Attr{&r.spa, &r.dpa} {
		if err := meta.Access(pa, r.cred, meta.MayExec); err != nil {
			return err
		}
	}
	_, src, ok, err := t.entry(r.sp, r.sn)
	if err != nil {
		return err
	}
	if !ok {
		return meta.ErrNotFound
	}
	_, dst, dstExists, err := t.entry(r.dp, r.dn)
	if err != nil {
		return err
	}
	if dstExists && r.flags&meta.RenameNoReplace != 0 {
		return meta.ErrExists
	}
	if !dstExists && r.flags&meta.RenameExchange != 0 {
		return meta.ErrNotFound
	}
	r.src, r.dst = src, dst
	keys := [][]byte{t.k.attr(src)}
	if dstExists {
		keys = append(keys, t.k.attr(dst), t.usageKey(dst))
	}
	if err := t.prefetch(keys...); err != nil {
		return err
	}
	if r.sa, err = t.attr(src); err != nil {
		return err
	}
	if dstExists {
		if r.da, err = t.attr(dst); err != nil {
			return err
		}
	}
	if err := r.checkLoops(dstExists); err != nil {
		return err
	}
	if dstExists && src == dst {
		return nil // two names of one inode: nothing to do, as in Linux
	}
	if err := r.checkPermissions(dstExists); err != nil {
		return err
	}
	if err := r.checkEmptySource(); err != nil {
		return err
	}
	ts := now()
	if r.flags&meta.RenameExchange != 0 {
		r.exchange(ts)
	} else if err := r.move(dstExists, ts); err != nil {
		return err
	}
	r.spa.Mtime, r.spa.Ctime = ts, ts
	if r.sp == r.dp {
		t.setAttr(r.sp, &r.spa)
		return nil
	}
	r.dpa.Mtime, r.dpa.Ctime = ts, ts
	t.setAttr(r.sp, &r.spa)
	t.setAttr(r.dp, &r.dpa)
	return nil
}

// checkLoops refuses to move a directory under itself (EINVAL) or to
// replace an ancestor of the source (ENOTEMPTY; EINVAL for an exchange).
func (r *renameOp) checkLoops(dstExists bool) error {
	if r.sp == r.dp {
		return nil
	}
	if r.sa.IsDir() {
		under, err := r.t.isAncestor(r.src, r.dp)
		if err != nil {
			return err
		}
		if under {
			return fmt.Errorf("directory %d into itself: %w", r.src, meta.ErrInvalid)
		}
	}
	if dstExists && r.da.IsDir() {
		under, err := r.t.isAncestor(r.dst, r.sp)
		if err != nil {
			return err
		}
		if under {
			if r.flags&meta.RenameExchange != 0 {
				return meta.ErrInvalid
			}
			return meta.ErrNotEmpty
		}
	}
	return nil
}

// isAncestor reports whether directory anc is dir or one of its ancestors.
func (t *txn) isAncestor(anc, dir meta.Ino) (bool, error) {
	for depth := 0; ; depth++ {
		if dir == anc {
			return true, nil
		}
		if dir == meta.RootIno || depth > 100000 {
			return false, nil
		}
		a, err := t.attr(dir)
		if err != nil {
			return false, err
		}
		dir = a.Parent
	}
}

// checkPermissions is vfs_rename's may_delete/may_create and the write
// permission a directory needs to change its "..".
func (r *renameOp) checkPermissions(dstExists bool) error {
	srcDir := r.sa.IsDir()
	if err := meta.MayDelete(&r.spa, &r.sa, r.cred); err != nil {
		return err
	}
	if !dstExists {
		if err := meta.Access(&r.dpa, r.cred, meta.MayWrite|meta.MayExec); err != nil {
			return err
		}
	} else {
		if err := meta.MayDelete(&r.dpa, &r.da, r.cred); err != nil {
			return err
		}
		if r.flags&meta.RenameExchange == 0 {
			if srcDir && !r.da.IsDir() {
				return meta.ErrNotDir
			}
			if !srcDir && r.da.IsDir() {
				return meta.ErrIsDir
			}
		}
	}
	if r.sp != r.dp {
		if srcDir {
			if err := meta.Access(&r.sa, r.cred, meta.MayWrite); err != nil {
				return err
			}
		}
		if dstExists && r.da.IsDir() && r.flags&meta.RenameExchange != 0 {
			if err := meta.Access(&r.da, r.cred, meta.MayWrite); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkEmptySource wants, with meta.RenameEmptyDir, the source to be a
// directory without entries. A client that adds one meanwhile writes the
// directory's attributes, which this transaction read: one of the two
// commits conflicts.
func (r *renameOp) checkEmptySource() error {
	if r.flags&meta.RenameEmptyDir == 0 {
		return nil
	}
	if !r.sa.IsDir() {
		return meta.ErrNotDir
	}
	begin, end := r.t.k.subRange(r.src, subEntry)
	kvs, err := r.t.Scan(begin, end, 1)
	if err != nil {
		return err
	}
	if len(kvs) > 0 {
		return meta.ErrNotEmpty
	}
	return nil
}

// parents returns the attributes to change for the source's and the
// destination's parent, which are one when they are the same directory.
func (r *renameOp) parents() (*meta.Attr, *meta.Attr) {
	if r.sp == r.dp {
		return &r.spa, &r.spa
	}
	return &r.spa, &r.dpa
}

func (r *renameOp) exchange(ts int64) {
	t := r.t
	spa, dpa := r.parents()
	t.put(t.k.entry(r.sp, r.sn), encodeEntry(r.da.Type, r.dst))
	t.put(t.k.entry(r.dp, r.dn), encodeEntry(r.sa.Type, r.src))
	if r.sp != r.dp {
		if r.sa.IsDir() {
			r.sa.Parent = r.dp
			spa.Nlink--
			dpa.Nlink++
		}
		if r.da.IsDir() {
			r.da.Parent = r.sp
			dpa.Nlink--
			spa.Nlink++
		}
	}
	r.sa.Ctime, r.da.Ctime = ts, ts
	t.setAttr(r.src, &r.sa)
	t.setAttr(r.dst, &r.da)
}

func (r *renameOp) move(dstExists bool, ts int64) error {
	t := r.t
	spa, dpa := r.parents()
	if dstExists {
		if r.da.IsDir() {
			if err := t.removeEmptyDir(r.dst); err != nil {
				return err
			}
			dpa.Nlink--
		} else {
			t.dropLink(r.sid, r.dst, &r.da, ts)
			if r.da.Nlink == 0 {
				r.replaced = r.dst
			}
		}
	}
	if r.sa.IsDir() && r.sp != r.dp {
		if dpa.Nlink >= maxLinks {
			return meta.ErrTooManyLinks
		}
		r.sa.Parent = r.dp
		spa.Nlink--
		dpa.Nlink++
	}
	r.sa.Ctime = ts
	t.del(t.k.entry(r.sp, r.sn))
	t.put(t.k.entry(r.dp, r.dn), encodeEntry(r.sa.Type, r.src))
	t.setAttr(r.src, &r.sa)
	return nil
}
