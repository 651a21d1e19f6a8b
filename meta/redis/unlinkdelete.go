package redis

import (
	"context"

	"cairn/meta"
)

var _ meta.UnlinkDeleter = (*Engine)(nil)

// UnlinkDelete is Unlink whose script also deletes the inode when the
// entry named expect and that was its last link, see meta.UnlinkDeleter.
func (e *Engine) UnlinkDelete(ctx context.Context, cred meta.Cred, parent meta.Ino, name string, sid uint64, expect meta.Ino) (meta.Ino, meta.Attr, bool, error) {
	r, err := e.call(ctx, "unlink", cred, uint64(parent), name, sid, uint64(expect))
	if err != nil {
		return 0, meta.Attr{}, false, err
	}
	list, err := resultList(r, 3)
	if err != nil {
		return 0, meta.Attr{}, false, err
	}
	ino, a, err := inoAttr(list[:2])
	if err != nil {
		return 0, meta.Attr{}, false, err
	}
	deleted, err := resultInt(list[2])
	return ino, a, deleted == 1, err
}
