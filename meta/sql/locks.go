package sql

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"

	"cairn/meta"
)

// Flock takes or drops a whole-file lock without waiting.
func (e *Engine) Flock(ctx context.Context, ino meta.Ino, owner meta.LockOwner, typ uint32) error {
	if e.d.routines {
		if err := e.flockRoutine(ctx, ino, owner, typ); err != errMissingRoutine {
			return err
		}
	}
	return e.txn(ctx, func(c *conn) error {
		if typ == meta.LockUnlock {
			_, err := c.exec("DELETE FROM cairn_flock WHERE ino = ? AND sid = ? AND owner = ?",
				int64(ino), int64(owner.Session), int64(owner.Owner))
			return err
		}
		// The inode's row guards its lock table: two first lockers must
		// not both see it empty.
		if _, err := c.getNode(ino, true); err != nil {
			return err
		}
		rows, err := c.query("SELECT sid, owner, ltype FROM cairn_flock WHERE ino = ?", int64(ino))
		if err != nil {
			return err
		}
		conflict := false
		for rows.Next() {
			var sid, own, held int64
			if err := rows.Scan(&sid, &own, &held); err != nil {
				rows.Close()
				return err
			}
			other := uint64(sid) != owner.Session || uint64(own) != owner.Owner
			if other && meta.LocksConflict(wholeFile(uint32(held)), wholeFile(typ)) {
				conflict = true
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if conflict {
			return meta.ErrAgain
		}
		_, err = c.exec(c.e.d.upsert("cairn_flock", []string{"ino", "sid", "owner", "ltype"}, 3),
			int64(ino), int64(owner.Session), int64(owner.Owner), int64(typ))
		return err
	})
}

// wholeFile is a whole-file flock as a byte-range lock, for
// meta.LocksConflict.
func wholeFile(typ uint32) meta.Lock { return meta.Lock{Type: typ, End: math.MaxUint64} }

// ownerLocks is one owner's byte-range locks on an inode.
type ownerLocks struct {
	owner  meta.LockOwner
	ranges []meta.Lock
}

// lockRecord is the size of one range in an owner's row: type u32,
// start, end u64, pid u32, big-endian. The routines' conflict checks read
// these records (and compare start and end as bytes), so the layout is
// theirs; meta/kv keeps every owner of an inode in one value and writes
// the owner into each record, meta/redis packs doubles for Lua.
const lockRecord = 24

func encodeLocks(ls []meta.Lock) []byte {
	b := make([]byte, 0, len(ls)*lockRecord)
	for _, l := range ls {
		b = binary.BigEndian.AppendUint32(b, l.Type)
		b = binary.BigEndian.AppendUint64(b, l.Start)
		b = binary.BigEndian.AppendUint64(b, l.End)
		b = binary.BigEndian.AppendUint32(b, l.Pid)
	}
	return b
}

func decodeLocks(b []byte) ([]meta.Lock, error) {
	if len(b)%lockRecord != 0 {
		return nil, fmt.Errorf("lock list of %d bytes is damaged: %w", len(b), meta.ErrIO)
	}
	var out []meta.Lock
	for ; len(b) > 0; b = b[lockRecord:] {
		out = append(out, meta.Lock{
			Type:  binary.BigEndian.Uint32(b),
			Start: binary.BigEndian.Uint64(b[4:]),
			End:   binary.BigEndian.Uint64(b[12:]),
			Pid:   binary.BigEndian.Uint32(b[20:]),
		})
	}
	return out, nil
}

// plocks reads every owner's byte-range locks on ino.
func (c *conn) plocks(ino meta.Ino) ([]ownerLocks, error) {
	rows, err := c.query("SELECT sid, owner, ranges FROM cairn_plock WHERE ino = ? ORDER BY sid, owner", int64(ino))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ownerLocks
	for rows.Next() {
		var sid, own int64
		var b []byte
		if err := rows.Scan(&sid, &own, &b); err != nil {
			return nil, err
		}
		ranges, err := decodeLocks(b)
		if err != nil {
			return nil, err
		}
		out = append(out, ownerLocks{meta.LockOwner{Session: uint64(sid), Owner: uint64(own)}, ranges})
	}
	return out, rows.Err()
}

// conflicting finds another owner's lock that l conflicts with.
func conflicting(all []ownerLocks, owner meta.LockOwner, l meta.Lock) (meta.Lock, bool) {
	for _, o := range all {
		if o.owner == owner {
			continue
		}
		for _, r := range o.ranges {
			if meta.LocksConflict(r, l) {
				return r, true
			}
		}
	}
	return meta.Lock{}, false
}

// GetLk returns another owner's lock that l conflicts with, or l unlocked.
func (e *Engine) GetLk(ctx context.Context, ino meta.Ino, owner meta.LockOwner, l meta.Lock) (meta.Lock, error) {
	var out meta.Lock
	err := e.read(ctx, func(c *conn) error {
		all, err := c.plocks(ino)
		if err != nil {
			return err
		}
		if r, ok := conflicting(all, owner, l); ok {
			out = r
			return nil
		}
		out = l
		out.Type = meta.LockUnlock
		return nil
	})
	return out, err
}

// SetLk sets or clears a byte-range lock without waiting.
func (e *Engine) SetLk(ctx context.Context, ino meta.Ino, owner meta.LockOwner, l meta.Lock) error {
	if e.d.routines {
		if err := e.setLkRoutine(ctx, ino, owner, l); err != errMissingRoutine {
			return err
		}
	}
	return e.txn(ctx, func(c *conn) error {
		if _, err := c.getNode(ino, true); err != nil {
			return err
		}
		all, err := c.plocks(ino)
		if err != nil {
			return err
		}
		if l.Type != meta.LockUnlock {
			if _, ok := conflicting(all, owner, l); ok {
				return meta.ErrAgain
			}
		}
		var mine []meta.Lock
		for _, o := range all {
			if o.owner == owner {
				mine = o.ranges
			}
		}
		mine = meta.ApplyLock(mine, l)
		if len(mine) == 0 {
			_, err := c.exec("DELETE FROM cairn_plock WHERE ino = ? AND sid = ? AND owner = ?",
				int64(ino), int64(owner.Session), int64(owner.Owner))
			return err
		}
		_, err = c.exec(c.e.d.upsert("cairn_plock", []string{"ino", "sid", "owner", "ranges"}, 3),
			int64(ino), int64(owner.Session), int64(owner.Owner), encodeLocks(mine))
		return err
	})
}
