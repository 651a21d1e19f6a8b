package kv

import (
	"context"
	"encoding/binary"
	"fmt"

	"cairn/meta"
)

var _ meta.Cloner = (*Engine)(nil)

// Clone copies inode src to a new inode ino named parent/name in one
// transaction (see meta.Cloner): the slice lists are copied key for key
// and every record adds a reference (refs.go), so the copies share blocks
// until either is written.
func (e *Engine) Clone(ctx context.Context, cred meta.Cred, src, parent meta.Ino, name string, ino meta.Ino, preserve bool) (meta.Attr, error) {
	var a meta.Attr
	err := e.txn(ctx, func(t *txn) error {
		pa, _, _, exists, err := t.lookupParent(&cred, parent, name, t.k.attr(src), t.k.attr(ino), t.usageKey(ino))
		if err != nil {
			return err
		}
		if exists {
			return meta.ErrExists
		}
		if err := meta.Access(&pa, cred, meta.MayWrite|meta.MayExec); err != nil {
			return err
		}
		if pa.Nlink == 0 {
			return fmt.Errorf("directory %d was removed: %w", parent, meta.ErrNotFound)
		}
		sa, err := t.attr(src)
		if err != nil {
			return err
		}
		if sa.Nlink == 0 {
			return fmt.Errorf("inode %d was removed: %w", src, meta.ErrNotFound)
		}
		if sa.IsDir() && pa.Nlink >= maxLinks {
			return meta.ErrTooManyLinks
		}
		if old, err := t.get(t.k.attr(ino)); err != nil || old != nil {
			if err == nil {
				err = fmt.Errorf("inode %d is already in use: %w", ino, meta.ErrExists)
			}
			return err
		}
		ts := now()
		if a, err = meta.CloneAttr(&sa, &pa, cred, preserve, ts); err != nil {
			return err
		}
		if err := t.checkSpace(spaceOf(&a), 1); err != nil {
			return err
		}
		if err := t.cloneContent(src, ino, &sa, preserve); err != nil {
			return err
		}
		if a.IsDir() {
			a.Parent = parent
			pa.Nlink++
		}
		pa.Mtime, pa.Ctime = ts, ts
		t.setAttr(parent, &pa)
		t.setAttr(ino, &a)
		t.put(t.k.entry(parent, name), encodeEntry(a.Type, ino))
		t.addUsage(ino, spaceOf(&a), 1)
		return nil
	})
	if err != nil {
		return a, fmt.Errorf("clone inode %d as %q in inode %d: %w", src, name, parent, err)
	}
	return a, nil
}

// cloneContent copies what src holds besides its attributes to ino: a
// symbolic link's target, a file's slice lists with their references, and
// with preserve the extended attributes.
func (t *txn) cloneContent(src, ino meta.Ino, sa *meta.Attr, preserve bool) error {
	switch sa.Type {
	case meta.TypeSymlink:
		target, err := t.get(t.k.symlink(src))
		if err != nil {
			return err
		}
		t.put(t.k.symlink(ino), target)
	case meta.TypeFile:
		begin, end := t.k.subRange(src, subChunk)
		chunks, err := t.scanAll(begin, end, 1000)
		if err != nil {
			return err
		}
		var shared []meta.Slice
		for _, kv := range chunks {
			list, err := meta.DecodeSliceRecords(kv.Value)
			if err != nil {
				return fmt.Errorf("slice list of inode %d: %w", src, err)
			}
			idx := binary.BigEndian.Uint32(kv.Key[len(kv.Key)-4:])
			t.put(t.k.chunk(ino, idx), kv.Value)
			shared = append(shared, list...)
		}
		if err := t.changeRefs(shared, nil); err != nil {
			return err
		}
	}
	if !preserve {
		return nil
	}
	begin, end := t.k.subRange(src, subXattr)
	xattrs, err := t.scanAll(begin, end, 1000)
	if err != nil {
		return err
	}
	for _, kv := range xattrs {
		t.put(t.k.xattr(ino, string(kv.Key[len(begin):])), kv.Value)
	}
	return nil
}
