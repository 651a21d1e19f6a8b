package kv

import (
	"context"
	"fmt"
	"sort"

	"cairn/meta"
)

// lockRecord is one lock held on an inode: a whole-file flock (Start 0,
// End max) or one byte range of a POSIX lock.
type lockRecord struct {
	meta.LockOwner
	meta.Lock
}

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

// conflicts reports whether r, held by another owner, blocks l.
func conflicts(r lockRecord, l meta.Lock) bool {
	return r.Start <= l.End && l.Start <= r.End && (r.Type == meta.LockWrite || l.Type == meta.LockWrite)
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
			if typ != meta.LockUnlock && conflicts(r, whole) {
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
			if r.LockOwner != owner && conflicts(r, l) {
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
		var others, mine []lockRecord
		for _, r := range rs {
			if r.LockOwner != owner {
				if l.Type != meta.LockUnlock && conflicts(r, l) {
					return meta.ErrAgain
				}
				others = append(others, r)
				continue
			}
			mine = append(mine, cutRange(r, l.Start, l.End)...)
		}
		if l.Type != meta.LockUnlock {
			mine = append(mine, lockRecord{owner, l})
		}
		t.setLocks(ino, subPlock, owner.Session, append(others, mergeRanges(mine)...))
		return nil
	})
	if err != nil {
		return fmt.Errorf("setlk inode %d: %w", ino, err)
	}
	return nil
}

// cutRange removes [start, end] from r, leaving zero, one or two pieces.
func cutRange(r lockRecord, start, end uint64) []lockRecord {
	if r.End < start || r.Start > end {
		return []lockRecord{r}
	}
	var out []lockRecord
	if r.Start < start {
		left := r
		left.End = start - 1
		out = append(out, left)
	}
	if r.End > end {
		right := r
		right.Start = end + 1
		out = append(out, right)
	}
	return out
}

// mergeRanges sorts one owner's non-overlapping ranges and joins adjacent
// ones of the same type, as fcntl does.
func mergeRanges(rs []lockRecord) []lockRecord {
	sort.Slice(rs, func(i, j int) bool { return rs[i].Start < rs[j].Start })
	var out []lockRecord
	for _, r := range rs {
		if n := len(out); n > 0 && out[n-1].Type == r.Type && out[n-1].End != ^uint64(0) && out[n-1].End+1 >= r.Start {
			out[n-1].End = max(out[n-1].End, r.End)
			out[n-1].Pid = r.Pid
			continue
		}
		out = append(out, r)
	}
	return out
}
