package kv

import (
	"context"
	"fmt"

	"cairn/meta"
)

var _ meta.UnlinkDeleter = (*Engine)(nil)

// UnlinkDelete is Unlink and, when the entry named expect and that was
// its last link, the inode's deletion in the same transaction when all
// of it fits in one step of ReleaseOrphan; a larger file stays an orphan
// that the caller releases.
func (e *Engine) UnlinkDelete(ctx context.Context, cred meta.Cred, parent meta.Ino, name string, sid uint64, expect meta.Ino) (meta.Ino, meta.Attr, bool, error) {
	var ino meta.Ino
	var a meta.Attr
	var deleted bool
	err := e.txn(ctx, func(t *txn) (err error) {
		deleted = false
		ino, a, err = t.unlink(cred, parent, name, sid, t.k.attr(expect), t.usageKey(expect))
		if err != nil || a.Nlink > 0 || ino != expect {
			return err
		}
		deleted, err = t.deleteWhole(sid, ino, &a)
		return err
	})
	if err != nil {
		return 0, a, false, fmt.Errorf("unlink %q in inode %d: %w", name, parent, err)
	}
	return ino, a, deleted, nil
}

// deleteWhole deletes orphan ino of session sid, whose attributes are a,
// when all its keys and slice records fit in one release step (a store's
// transaction limits bound what one transaction may write); otherwise it
// writes nothing and reports false. One scan reads the whole inode;
// whether it sees the attributes this transaction wrote (Badger) or
// those before it (etcd), what it deletes is the same.
func (t *txn) deleteWhole(sid uint64, ino meta.Ino, a *meta.Attr) (bool, error) {
	begin, end := t.k.inodeRange(ino)
	kvs, err := t.Scan(begin, end, releaseBatch)
	if err != nil || len(kvs) >= releaseBatch {
		return false, err
	}
	sub := len(t.k.attr(ino)) - 1
	var gone []meta.Slice
	for _, kv := range kvs {
		if kv.Key[sub] != subChunk {
			continue
		}
		list, err := meta.DecodeSliceRecords(kv.Value)
		if err != nil {
			return false, fmt.Errorf("inode %d: %w", ino, err)
		}
		gone = append(gone, list...)
	}
	if len(gone) > releaseBatch {
		return false, nil
	}
	for _, kv := range kvs {
		t.del(kv.Key)
	}
	t.del(t.k.attr(ino))
	t.del(t.k.orphan(sid, ino))
	t.addUsage(ino, -spaceOf(a), -1)
	return true, t.changeRefs(nil, gone)
}
