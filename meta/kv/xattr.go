package kv

import (
	"context"
	"fmt"

	"cairn/meta"
)

func (e *Engine) GetXattr(ctx context.Context, ino meta.Ino, name string) ([]byte, error) {
	var value []byte
	err := e.txn(ctx, func(t *txn) (err error) {
		if err := t.prefetch(t.k.attr(ino), t.k.xattr(ino, name)); err != nil {
			return err
		}
		if _, err := t.attr(ino); err != nil {
			return err
		}
		if value, err = t.get(t.k.xattr(ino, name)); err != nil {
			return err
		}
		if value == nil {
			return meta.ErrNoAttr
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("getxattr %q of inode %d: %w", name, ino, err)
	}
	return decodeXattr(value), nil
}

// Xattr values are stored behind one byte so that an empty value is not
// taken for a missing key by stores that do not tell them apart.
func encodeXattr(v []byte) []byte { return append([]byte{0}, v...) }
func decodeXattr(v []byte) []byte { return append([]byte{}, v[1:]...) }

func (e *Engine) ListXattr(ctx context.Context, ino meta.Ino) ([]string, error) {
	var names []string
	err := e.txn(ctx, func(t *txn) error {
		names = nil
		if _, err := t.attr(ino); err != nil {
			return err
		}
		b, end := t.k.subRange(ino, subXattr)
		kvs, err := t.scanAll(b, end, 256)
		if err != nil {
			return err
		}
		prefix := len(t.k.xattr(ino, ""))
		for _, kv := range kvs {
			names = append(names, string(kv.Key[prefix:]))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listxattr of inode %d: %w", ino, err)
	}
	return names, nil
}

func (e *Engine) SetXattr(ctx context.Context, cred meta.Cred, ino meta.Ino, name string, value []byte, flags uint32) error {
	err := e.changeXattr(ctx, cred, ino, name, func(t *txn, exists bool) error {
		if exists && flags&meta.XattrCreate != 0 {
			return meta.ErrExists
		}
		if !exists && flags&meta.XattrReplace != 0 {
			return meta.ErrNoAttr
		}
		t.put(t.k.xattr(ino, name), encodeXattr(value))
		return nil
	})
	if err != nil {
		return fmt.Errorf("setxattr %q of inode %d: %w", name, ino, err)
	}
	return nil
}

func (e *Engine) RemoveXattr(ctx context.Context, cred meta.Cred, ino meta.Ino, name string) error {
	err := e.changeXattr(ctx, cred, ino, name, func(t *txn, exists bool) error {
		if !exists {
			return meta.ErrNoAttr
		}
		t.del(t.k.xattr(ino, name))
		return nil
	})
	if err != nil {
		return fmt.Errorf("removexattr %q of inode %d: %w", name, ino, err)
	}
	return nil
}

// changeXattr checks that cred owns ino, runs change and sets ctime.
func (e *Engine) changeXattr(ctx context.Context, cred meta.Cred, ino meta.Ino, name string, change func(t *txn, exists bool) error) error {
	return e.txn(ctx, func(t *txn) error {
		if err := t.prefetch(t.k.attr(ino), t.k.xattr(ino, name)); err != nil {
			return err
		}
		a, err := t.attr(ino)
		if err != nil {
			return err
		}
		if cred.Uid != 0 && cred.Uid != a.Uid {
			return meta.ErrNotPermitted
		}
		old, err := t.get(t.k.xattr(ino, name))
		if err != nil {
			return err
		}
		if err := change(t, old != nil); err != nil {
			return err
		}
		a.Ctime = now()
		t.setAttr(ino, &a)
		return nil
	})
}
