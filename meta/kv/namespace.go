package kv

import (
	"context"
	"fmt"

	"cairn/meta"
)

// maxLinks is the most hard links an inode (or subdirectories a directory)
// may have, as on ext4.
const maxLinks = 65000

// lookupParent reads directory parent and the entry name in it in one
// request, and checks that the caller may search parent.
func (t *txn) lookupParent(cred *meta.Cred, parent meta.Ino, name string, more ...[]byte) (meta.Attr, meta.FileType, meta.Ino, bool, error) {
	if err := t.prefetch(append([][]byte{t.k.attr(parent), t.k.entry(parent, name)}, more...)...); err != nil {
		return meta.Attr{}, 0, 0, false, err
	}
	pa, err := t.dir(parent)
	if err != nil {
		return pa, 0, 0, false, err
	}
	if cred != nil {
		if err := meta.Access(&pa, *cred, meta.MayExec); err != nil {
			return pa, 0, 0, false, err
		}
	}
	typ, ino, ok, err := t.entry(parent, name)
	return pa, typ, ino, ok, err
}

func (e *Engine) Lookup(ctx context.Context, parent meta.Ino, name string) (meta.Ino, meta.Attr, error) {
	var ino meta.Ino
	var a meta.Attr
	err := e.txn(ctx, func(t *txn) error {
		_, _, child, ok, err := t.lookupParent(nil, parent, name)
		if err != nil {
			return err
		}
		if !ok {
			return meta.ErrNotFound
		}
		ino = child
		a, err = t.attr(child)
		return err
	})
	if err != nil {
		return 0, a, fmt.Errorf("lookup %q in inode %d: %w", name, parent, err)
	}
	return ino, a, nil
}

func (e *Engine) GetAttr(ctx context.Context, ino meta.Ino) (meta.Attr, error) {
	var a meta.Attr
	err := e.txn(ctx, func(t *txn) (err error) {
		a, err = t.attr(ino)
		return err
	})
	if err != nil {
		return a, fmt.Errorf("getattr: %w", err)
	}
	return a, nil
}

func (e *Engine) SetAttr(ctx context.Context, cred meta.Cred, ino meta.Ino, set meta.SetAttr) (meta.Attr, error) {
	var a meta.Attr
	err := e.txn(ctx, func(t *txn) (err error) {
		if a, err = t.attr(ino); err != nil {
			return err
		}
		if err := meta.ApplySetAttr(&a, cred, set, now()); err != nil {
			return err
		}
		t.setAttr(ino, &a)
		return nil
	})
	if err != nil {
		return a, fmt.Errorf("setattr inode %d: %w", ino, err)
	}
	return a, nil
}

func (e *Engine) Mknod(ctx context.Context, cred meta.Cred, parent meta.Ino, name string, ino meta.Ino, typ meta.FileType, mode uint16, rdev uint32, target string) (meta.Attr, error) {
	var a meta.Attr
	err := e.txn(ctx, func(t *txn) error {
		pa, _, child, exists, err := t.lookupParent(&cred, parent, name, t.k.attr(ino), t.usageKey(ino))
		if err != nil {
			return err
		}
		if exists && child == ino {
			// The inode number is this call's own: the entry is this
			// create's, sent again after its first attempt took effect
			// (a retry of an error taken for one that never reached the
			// store); done, not EEXIST.
			if a, err = t.attr(ino); err == nil && a.Type != typ {
				err = meta.ErrExists
			}
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
		if typ == meta.TypeDirectory && pa.Nlink >= maxLinks {
			return meta.ErrTooManyLinks
		}
		if old, err := t.get(t.k.attr(ino)); err != nil || old != nil {
			if err == nil {
				err = fmt.Errorf("inode %d is already in use: %w", ino, meta.ErrExists)
			}
			return err
		}
		if err := t.checkSpace(0, 1); err != nil {
			return err
		}
		t.freshRange(t.k.inodeRange(ino))
		ts := now()
		a = meta.InitAttr(&pa, cred, typ, mode, rdev, ts)
		switch typ {
		case meta.TypeDirectory:
			a.Parent = parent
			pa.Nlink++
		case meta.TypeSymlink:
			a.Length = uint64(len(target))
			t.put(t.k.symlink(ino), []byte(target))
		}
		pa.Mtime, pa.Ctime = ts, ts
		t.setAttr(parent, &pa)
		t.setAttr(ino, &a)
		t.put(t.k.entry(parent, name), encodeEntry(typ, ino))
		t.addUsage(ino, 0, 1)
		return nil
	})
	if err != nil {
		return a, fmt.Errorf("create %q in inode %d: %w", name, parent, err)
	}
	return a, nil
}

func (e *Engine) Link(ctx context.Context, cred meta.Cred, ino meta.Ino, parent meta.Ino, name string) (meta.Attr, error) {
	var a meta.Attr
	err := e.txn(ctx, func(t *txn) (err error) {
		pa, _, _, exists, err := t.lookupParent(&cred, parent, name, t.k.attr(ino))
		if err != nil {
			return err
		}
		if a, err = t.attr(ino); err != nil {
			return err
		}
		if a.IsDir() {
			return fmt.Errorf("hard link to directory %d: %w", ino, meta.ErrNotPermitted)
		}
		if exists {
			return meta.ErrExists
		}
		if err := meta.Access(&pa, cred, meta.MayWrite|meta.MayExec); err != nil {
			return err
		}
		if pa.Nlink == 0 || a.Nlink == 0 {
			return meta.ErrNotFound
		}
		if a.Nlink >= maxLinks {
			return meta.ErrTooManyLinks
		}
		ts := now()
		a.Nlink++
		a.Ctime = ts
		pa.Mtime, pa.Ctime = ts, ts
		t.setAttr(ino, &a)
		t.setAttr(parent, &pa)
		t.put(t.k.entry(parent, name), encodeEntry(a.Type, ino))
		return nil
	})
	if err != nil {
		return a, fmt.Errorf("link inode %d as %q in inode %d: %w", ino, name, parent, err)
	}
	return a, nil
}

func (e *Engine) Unlink(ctx context.Context, cred meta.Cred, parent meta.Ino, name string, sid uint64) (meta.Ino, meta.Attr, error) {
	var ino meta.Ino
	var a meta.Attr
	err := e.txn(ctx, func(t *txn) (err error) {
		ino, a, err = t.unlink(cred, parent, name, sid)
		return err
	})
	if err != nil {
		return 0, a, fmt.Errorf("unlink %q in inode %d: %w", name, parent, err)
	}
	return ino, a, nil
}

// unlink is Unlink's transaction; the keys more are read along with the
// parent's.
func (t *txn) unlink(cred meta.Cred, parent meta.Ino, name string, sid uint64, more ...[]byte) (meta.Ino, meta.Attr, error) {
	pa, _, child, exists, err := t.lookupParent(&cred, parent, name, more...)
	if err != nil {
		return 0, meta.Attr{}, err
	}
	if !exists {
		return 0, meta.Attr{}, meta.ErrNotFound
	}
	a, err := t.attr(child)
	if err != nil {
		return 0, a, err
	}
	if err := meta.MayDelete(&pa, &a, cred); err != nil {
		return 0, a, err
	}
	if a.IsDir() {
		return 0, a, meta.ErrIsDir
	}
	ts := now()
	pa.Mtime, pa.Ctime = ts, ts
	t.setAttr(parent, &pa)
	t.del(t.k.entry(parent, name))
	t.dropLink(sid, child, &a, ts)
	return child, a, nil
}

// dropLink takes one link from non-directory ino; the last one makes it an
// orphan of session sid.
func (t *txn) dropLink(sid uint64, ino meta.Ino, a *meta.Attr, ts int64) {
	a.Nlink--
	a.Ctime = ts
	t.setAttr(ino, a)
	if a.Nlink == 0 {
		t.put(t.k.orphan(sid, ino), marker)
	}
}

func (e *Engine) Rmdir(ctx context.Context, cred meta.Cred, parent meta.Ino, name string) error {
	_, err := e.RmdirAt(ctx, cred, parent, name)
	return err
}

var _ meta.RmdirTimer = (*Engine)(nil)

// RmdirAt is Rmdir, and says the time it set on the parent, see
// meta.RmdirTimer.
func (e *Engine) RmdirAt(ctx context.Context, cred meta.Cred, parent meta.Ino, name string) (int64, error) {
	var changed int64
	err := e.txn(ctx, func(t *txn) error {
		pa, _, child, exists, err := t.lookupParent(&cred, parent, name)
		if err != nil {
			return err
		}
		if !exists {
			return meta.ErrNotFound
		}
		if err := t.prefetch(t.k.attr(child), t.usageKey(child)); err != nil {
			return err
		}
		a, err := t.attr(child)
		if err != nil {
			return err
		}
		if err := meta.MayDelete(&pa, &a, cred); err != nil {
			return err
		}
		if !a.IsDir() {
			return meta.ErrNotDir
		}
		if err := t.removeEmptyDir(child); err != nil {
			return err
		}
		ts := now()
		changed = ts
		pa.Nlink--
		pa.Mtime, pa.Ctime = ts, ts
		t.setAttr(parent, &pa)
		t.del(t.k.entry(parent, name))
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("rmdir %q in inode %d: %w", name, parent, err)
	}
	return changed, nil
}

// removeEmptyDir deletes directory ino's keys and takes it out of Usage,
// or fails with ErrNotEmpty when it has entries. One scan of the inode's
// range does both: entries sort first among a directory's keys.
func (t *txn) removeEmptyDir(ino meta.Ino) error {
	begin, end := t.k.inodeRange(ino)
	entry := len(t.k.attr(ino)) - 1
	for {
		kvs, err := t.Scan(begin, end, 64)
		if err != nil {
			return err
		}
		for _, kv := range kvs {
			if kv.Key[entry] == subEntry {
				return meta.ErrNotEmpty
			}
		}
		for _, kv := range kvs {
			t.del(kv.Key)
		}
		if len(kvs) < 64 {
			break
		}
		begin = after(kvs[len(kvs)-1].Key)
	}
	t.del(t.k.attr(ino))
	t.addUsage(ino, 0, -1)
	return nil
}

func (e *Engine) Readlink(ctx context.Context, ino meta.Ino) (string, error) {
	var target []byte
	err := e.txn(ctx, func(t *txn) error {
		if err := t.prefetch(t.k.attr(ino), t.k.symlink(ino)); err != nil {
			return err
		}
		a, err := t.attr(ino)
		if err != nil {
			return err
		}
		if a.Type != meta.TypeSymlink {
			return meta.ErrInvalid
		}
		target, err = t.get(t.k.symlink(ino))
		return err
	})
	if err != nil {
		return "", fmt.Errorf("readlink inode %d: %w", ino, err)
	}
	return string(target), nil
}

// defaultReaddirLimit is the page size when a caller asks for no limit.
const defaultReaddirLimit = 1024

func (e *Engine) Readdir(ctx context.Context, ino meta.Ino, afterName string, limit int, plus bool) ([]meta.Entry, error) {
	if limit <= 0 {
		limit = defaultReaddirLimit
	}
	var out []meta.Entry
	err := e.txn(ctx, func(t *txn) error {
		out = nil
		begin, end := t.k.subRange(ino, subEntry)
		if afterName != "" {
			begin = after(t.k.entry(ino, afterName))
		}
		kvs, err := t.Scan(begin, end, limit)
		if err != nil {
			return err
		}
		if len(kvs) == 0 {
			_, err := t.dir(ino)
			return err
		}
		prefix := len(t.k.entry(ino, ""))
		var attrKeys [][]byte
		for _, kv := range kvs {
			typ, child, err := decodeEntry(kv.Value)
			if err != nil {
				return fmt.Errorf("entry %q: %w", kv.Key[prefix:], err)
			}
			out = append(out, meta.Entry{Name: string(kv.Key[prefix:]), Ino: child, Type: typ})
			attrKeys = append(attrKeys, t.k.attr(child))
		}
		if !plus {
			return nil
		}
		if err := t.prefetch(attrKeys...); err != nil {
			return err
		}
		attrs := make([]meta.Attr, len(out)) // one allocation for the page's
		for i := range out {
			a, err := t.attr(out[i].Ino)
			if err != nil {
				return fmt.Errorf("entry %q: %w", out[i].Name, err)
			}
			attrs[i] = a
			out[i].Attr = &attrs[i]
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("readdir inode %d: %w", ino, err)
	}
	return out, nil
}
