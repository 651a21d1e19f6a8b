package sql

import (
	"context"

	"cairn/meta"
)

var _ meta.UnlinkDeleter = (*Engine)(nil)

// UnlinkDelete is Unlink and, when the entry named expect and that was
// its last link, the orphan's release in the same transaction: with the
// PostgreSQL and MySQL routines, one call of cairn_remove.
func (e *Engine) UnlinkDelete(ctx context.Context, cred meta.Cred, parent meta.Ino, name string, sid uint64, expect meta.Ino) (meta.Ino, meta.Attr, bool, error) {
	if e.d.routines {
		ino, a, deleted, err := e.unlinkRoutine(ctx, cred, parent, name, sid, expect)
		if err != errMissingRoutine {
			return ino, a, deleted, err
		}
	}
	var ino meta.Ino
	var a meta.Attr
	var deleted bool
	err := e.txn(ctx, func(c *conn) (err error) {
		ino, a, deleted, err = c.unlink(cred, parent, name, sid, expect)
		return err
	})
	return ino, a, deleted, err
}
