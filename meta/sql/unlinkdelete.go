package sql

import (
	"context"

	"cairn/meta"
)

var _ meta.UnlinkDeleter = (*Engine)(nil)

// UnlinkDelete is Unlink and, when the entry named expect and that was
// its last link, the orphan's release in the same transaction. With the
// PostgreSQL and MySQL routines it is Unlink alone (one call of
// cairn_remove), and the caller releases the orphan.
func (e *Engine) UnlinkDelete(ctx context.Context, cred meta.Cred, parent meta.Ino, name string, sid uint64, expect meta.Ino) (meta.Ino, meta.Attr, bool, error) {
	if e.d.routines {
		ino, a, err := e.Unlink(ctx, cred, parent, name, sid)
		return ino, a, false, err
	}
	var ino meta.Ino
	var a meta.Attr
	var deleted bool
	err := e.txn(ctx, func(c *conn) (err error) {
		deleted = false
		ino, a, err = c.unlink(cred, parent, name, sid)
		if err != nil || a.Nlink > 0 || ino != expect {
			return err
		}
		deleted = true
		return c.releaseOrphan(sid, ino)
	})
	return ino, a, deleted, err
}
