package sql

import (
	"context"
	"errors"
	"math"
	"testing"

	"cairn/meta"
	"cairn/meta/metatest"
)

// checkLockRoutine holds the conflict check that cairn_setlk runs inside
// the database (PostgreSQL's function, MySQL's cairn_lock_conflict) to
// meta.LocksConflict: another owner holds each of metatest's states, and
// every read and write request must fail with EAGAIN exactly when Go says
// one of the held ranges conflicts. The ranges themselves are computed in
// Go (meta.ApplyLock) and only stored by the routine.
func checkLockRoutine(t *testing.T, e *Engine) {
	ctx := context.Background()
	if err := e.Init(ctx, testFormat(), false); err != nil {
		t.Fatal(err)
	}
	if !e.d.routines {
		t.Fatal("the engine runs SetLk without its routine")
	}
	const ino = meta.Ino(50)
	if _, err := e.Mknod(ctx, meta.RootCred, meta.RootIno, "locked", ino, meta.TypeFile, 0644, 0, ""); err != nil {
		t.Fatal(err)
	}
	c := &conn{ctx: ctx, e: e, q: e.db}
	// The routine walks the other owners' rows in key order; an owner
	// with the top bit set is a negative BIGINT and sorts first, and a
	// row holding no range comes before the holder's, so the walk must
	// start below every owner and go on past a row.
	holder := meta.LockOwner{Session: 1, Owner: 1<<63 + 2}
	emptyOwner := uint64(1 << 63)
	next := uint64(1)
	cases := 0
	// Past 2^63 the 8-byte keys compare as unsigned numbers only if the
	// routine compares bytes, not signed integers.
	const far = 1<<63 + 5
	for _, state := range metatest.LockStates(far) {
		if _, err := c.exec("DELETE FROM cairn_plock WHERE ino = ?", int64(ino)); err != nil {
			t.Fatal(err)
		}
		if _, err := c.exec("INSERT INTO cairn_plock (ino, sid, owner, ranges) VALUES (?, ?, ?, ?)",
			int64(ino), int64(holder.Session), int64(emptyOwner), []byte{}); err != nil {
			t.Fatal(err)
		}
		if len(state) > 0 {
			if _, err := c.exec("INSERT INTO cairn_plock (ino, sid, owner, ranges) VALUES (?, ?, ?, ?)",
				int64(ino), int64(holder.Session), int64(holder.Owner), encodeLocks(state)); err != nil {
				t.Fatal(err)
			}
		}
		for _, l := range metatest.LockRequests(far) {
			if l.Type == meta.LockUnlock {
				continue
			}
			want := false
			for _, r := range state {
				want = want || meta.LocksConflict(r, l)
			}
			next++
			owner := meta.LockOwner{Session: 2, Owner: next}
			err := e.SetLk(ctx, ino, owner, l)
			if errors.Is(err, meta.ErrAgain) != want || (err != nil && !want) {
				t.Errorf("SetLk %v beside %v: routine %v, Go conflict %v", l, state, err, want)
			}
			if err == nil {
				if err := e.SetLk(ctx, ino, owner, meta.Lock{Type: meta.LockUnlock, End: math.MaxUint64}); err != nil {
					t.Fatal(err)
				}
			}
			cases++
		}
	}
	t.Logf("%d lock cases agree", cases)
}
