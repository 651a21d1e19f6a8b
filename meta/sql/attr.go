package sql

import (
	"context"

	"cairn/meta"
)

// SetAttr changes mode, owner and times with meta.ApplySetAttr's rules.
func (e *Engine) SetAttr(ctx context.Context, cred meta.Cred, ino meta.Ino, set meta.SetAttr) (meta.Attr, error) {
	if e.d.routines {
		a, err := e.setAttrRoutine(ctx, cred, ino, set)
		if err != errMissingRoutine {
			return a, err
		}
	}
	var a meta.Attr
	err := e.txn(ctx, func(c *conn) error {
		var err error
		if a, err = c.getNode(ino, true); err != nil {
			return err
		}
		if err := meta.ApplySetAttr(&a, cred, set, nowNs()); err != nil {
			return err
		}
		return c.putNode(ino, &a)
	})
	return a, err
}
