package kv

import (
	"context"
	"fmt"

	"cairn/meta"
)

// lockRecord is one lock held on an inode: a whole-file flock (Start 0,
// End max) or one byte range of a POSIX lock.
type lockRecord struct {
	meta.LockOwner
	meta.Lock
}

// lockRecordSize is one record of an inode's lock list: session, owner
// u64, type, pid u32, start, end u64, big-endian. All owners share the
// inode's one value, so each record carries its owner, unlike meta/sql's
// per-owner rows.
const lockRecordSize = 8 + 8 + 4 + 4 + 8 + 8

func encodeLocks(rs []lockRecord) []byte {
	b := make([]byte, 0, len(rs)*lockRecordSize)
	for _, r := range rs {
		b = be.AppendUint64(b, r.Session)
		b = be.AppendUint64(b, r.Owner)
		b = be.AppendUint32(b, r.Type)
		b = be.AppendUint32(b, r.Pid)
		b = be.AppendUint64(b, r.Start)
		b = be.AppendUint64(b, r.End)
	}
	return b
}

func decodeLocks(b []byte) ([]lockRecord, error) {
	if len(b)%lockRecordSize != 0 {
		return nil, fmt.Errorf("corrupt lock list: %d bytes", len(b))
	}
	var rs []lockRecord
	for ; len(b) > 0; b = b[lockRecordSize:] {
		rs = append(rs, lockRecord{
			LockOwner: meta.LockOwner{Session: be.Uint64(b), Owner: be.Uint64(b[8:])},
			Lock:      meta.Lock{Type: be.Uint32(b[16:]), Pid: be.Uint32(b[20:]), Start: be.Uint64(b[24:]), End: be.Uint64(b[32:])},
		})
	}
	return rs, nil
}

// locks reads the lock list of kind (subFlock, subPlock) of ino, checking
// that ino exists.
func (t *txn) locks(ino meta.Ino, kind byte) ([]lockRecord, error) {
	key := t.k.inode(ino, kind)
	if err := t.prefetch(t.k.attr(ino), key); err != nil {
		return nil, err
	}
	if _, err := t.attr(ino); err != nil {
		return nil, err
	}
	v, err := t.get(key)
	if err != nil {
		return nil, err
	}
	return decodeLocks(v)
}

// setLocks stores the lock list and keeps the session's reference to it,
// which CloseSession follows to drop the session's locks.
func (t *txn) setLocks(ino meta.Ino, kind byte, sid uint64, rs []lockRecord) {
	key := t.k.inode(ino, kind)
	if len(rs) == 0 {
		t.del(key)
	} else {
		t.put(key, encodeLocks(rs))
	}
	for _, r := range rs {
		if r.Session == sid {
			t.put(t.k.lockRef(sid, ino, kind), marker)
			return
		}
	}
	t.del(t.k.lockRef(sid, ino, kind))
}

func (e *Engine) Flock(ctx context.Context, ino meta.Ino, owner meta.LockOwner, typ uint32) error {
	err := e.txn(ctx, func(t *txn) error {
		rs, err := t.locks(ino, subFlock)
		if err != nil {
			return err
		}
		whole := meta.Lock{Type: typ, Start: 0, End: ^uint64(0)}
		var kept []lockRecord
		for _, r := range rs {
			if r.LockOwner == owner {
				continue
			}
			if meta.LocksConflict(r.Lock, whole) {
				return meta.ErrAgain
			}
			kept = append(kept, r)
		}
		if typ != meta.LockUnlock {
			kept = append(kept, lockRecord{owner, whole})
		}
		t.setLocks(ino, subFlock, owner.Session, kept)
		return nil
	})
	if err != nil {
		return fmt.Errorf("flock inode %d: %w", ino, err)
	}
	return nil
}

func (e *Engine) GetLk(ctx context.Context, ino meta.Ino, owner meta.LockOwner, l meta.Lock) (meta.Lock, error) {
	out := l
	err := e.txn(ctx, func(t *txn) error {
		out = l
		out.Type = meta.LockUnlock
		rs, err := t.locks(ino, subPlock)
		if err != nil {
			return err
		}
		for _, r := range rs {
			if r.LockOwner != owner && meta.LocksConflict(r.Lock, l) {
				out = r.Lock
				return nil
			}
		}
		return nil
	})
	if err != nil {
		return l, fmt.Errorf("getlk inode %d: %w", ino, err)
	}
	return out, nil
}

func (e *Engine) SetLk(ctx context.Context, ino meta.Ino, owner meta.LockOwner, l meta.Lock) error {
	err := e.txn(ctx, func(t *txn) error {
		rs, err := t.locks(ino, subPlock)
		if err != nil {
			return err
		}
		var kept []lockRecord
		var mine []meta.Lock
		for _, r := range rs {
			if r.LockOwner == owner {
				mine = append(mine, r.Lock)
				continue
			}
			if meta.LocksConflict(r.Lock, l) {
				return meta.ErrAgain
			}
			kept = append(kept, r)
		}
		for _, r := range meta.ApplyLock(mine, l) {
			kept = append(kept, lockRecord{owner, r})
		}
		t.setLocks(ino, subPlock, owner.Session, kept)
		return nil
	})
	if err != nil {
		return fmt.Errorf("setlk inode %d: %w", ino, err)
	}
	return nil
}
