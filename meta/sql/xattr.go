package sql

import (
	"context"

	"cairn/meta"
)

// GetXattr reads one extended attribute.
func (e *Engine) GetXattr(ctx context.Context, ino meta.Ino, name string) ([]byte, error) {
	var v []byte
	err := e.read(ctx, func(c *conn) error {
		err := c.queryRow("SELECT value FROM cairn_xattr WHERE ino = ? AND name = ?", int64(ino), nameArg(name)).Scan(&v)
		if isNoRows(err) {
			if _, err := c.getNode(ino, false); err != nil {
				return err
			}
			return meta.ErrNoAttr
		}
		return err
	})
	if err == nil && v == nil {
		v = []byte{}
	}
	return v, err
}

// ListXattr lists an inode's extended attribute names in byte order.
func (e *Engine) ListXattr(ctx context.Context, ino meta.Ino) ([]string, error) {
	var names []string
	err := e.read(ctx, func(c *conn) error {
		names = names[:0]
		rows, err := c.query("SELECT name FROM cairn_xattr WHERE ino = ? ORDER BY name", int64(ino))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var n []byte
			if err := rows.Scan(&n); err != nil {
				return err
			}
			names = append(names, string(n))
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if len(names) == 0 {
			_, err := c.getNode(ino, false)
			return err
		}
		return nil
	})
	return names, err
}

// lockOwned locks an inode whose xattrs cred wants to change.
func (c *conn) lockOwned(ino meta.Ino, cred meta.Cred) (meta.Attr, error) {
	a, err := c.getNode(ino, true)
	if err != nil {
		return a, err
	}
	if cred.Uid != 0 && cred.Uid != a.Uid {
		return a, meta.ErrNotPermitted
	}
	return a, nil
}

// SetXattr creates or replaces an extended attribute.
func (e *Engine) SetXattr(ctx context.Context, cred meta.Cred, ino meta.Ino, name string, value []byte, flags uint32) error {
	if e.d.routines {
		if err := e.setXattrRoutine(ctx, cred, ino, name, value, flags); err != errMissingRoutine {
			return err
		}
	}
	return e.txn(ctx, func(c *conn) error {
		if _, err := c.lockOwned(ino, cred); err != nil {
			return err
		}
		if flags != 0 {
			var one int
			err := c.queryRow("SELECT 1 FROM cairn_xattr WHERE ino = ? AND name = ?", int64(ino), nameArg(name)).Scan(&one)
			if err != nil && !isNoRows(err) {
				return err
			}
			exists := err == nil
			if exists && flags&meta.XattrCreate != 0 {
				return meta.ErrExists
			}
			if !exists && flags&meta.XattrReplace != 0 {
				return meta.ErrNoAttr
			}
		}
		if _, err := c.exec(c.e.d.upsert("cairn_xattr", []string{"ino", "name", "value"}, 2),
			int64(ino), nameArg(name), blobArg(value)); err != nil {
			return err
		}
		_, err := c.exec("UPDATE cairn_node SET ctime = ? WHERE ino = ?", nowNs(), int64(ino))
		return err
	})
}

// RemoveXattr deletes an extended attribute.
func (e *Engine) RemoveXattr(ctx context.Context, cred meta.Cred, ino meta.Ino, name string) error {
	if e.d.routines {
		if err := e.removeXattrRoutine(ctx, cred, ino, name); err != errMissingRoutine {
			return err
		}
	}
	return e.txn(ctx, func(c *conn) error {
		if _, err := c.lockOwned(ino, cred); err != nil {
			return err
		}
		n, err := c.execCount("DELETE FROM cairn_xattr WHERE ino = ? AND name = ?", int64(ino), nameArg(name))
		if err != nil {
			return err
		}
		if n == 0 {
			return meta.ErrNoAttr
		}
		_, err = c.exec("UPDATE cairn_node SET ctime = ? WHERE ino = ?", nowNs(), int64(ino))
		return err
	})
}
