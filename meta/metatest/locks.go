package metatest

import (
	"cairn/meta"
)

func lockTests() []test {
	return []test{
		{"Flock/SharedExclusive", testFlock},
		{"Flock/Upgrade", testFlockUpgrade},
		{"SetLk/Conflict", testSetLkConflict},
		{"SetLk/ReadShared", testSetLkReadShared},
		{"SetLk/SplitMerge", testSetLkSplitMerge},
		{"SetLk/MergedPid", testSetLkMergedPid},
		{"SetLk/Model", testSetLkModel},
		{"SetLk/ToEnd", testSetLkToEnd},
		{"SetLk/OwnersBySession", testSetLkOwners},
		{"SetLk/Files", testSetLkFiles},
	}
}

const toEnd = ^uint64(0)

func testFlock(x *env) {
	f := x.create(meta.RootIno, "f")
	a := meta.LockOwner{Session: x.sid, Owner: 1}
	b := meta.LockOwner{Session: x.sid, Owner: 2}
	c := meta.LockOwner{Session: x.sid, Owner: 3}
	x.want(nil, x.e.Flock(x.ctx, f, a, meta.LockRead), "shared flock")
	x.want(nil, x.e.Flock(x.ctx, f, b, meta.LockRead), "second shared flock")
	x.want(meta.ErrAgain, x.e.Flock(x.ctx, f, c, meta.LockWrite), "exclusive flock against two shared")
	x.want(nil, x.e.Flock(x.ctx, f, a, meta.LockUnlock), "unlock")
	x.want(meta.ErrAgain, x.e.Flock(x.ctx, f, c, meta.LockWrite), "exclusive flock against one shared")
	x.want(nil, x.e.Flock(x.ctx, f, b, meta.LockUnlock), "unlock")
	x.want(nil, x.e.Flock(x.ctx, f, c, meta.LockWrite), "exclusive flock on a free file")
	x.want(meta.ErrAgain, x.e.Flock(x.ctx, f, a, meta.LockRead), "shared flock against an exclusive one")
	x.want(meta.ErrAgain, x.e.Flock(x.ctx, f, a, meta.LockWrite), "exclusive flock against an exclusive one")
	x.want(nil, x.e.Flock(x.ctx, f, c, meta.LockWrite), "exclusive flock taken again by its holder")
	x.want(nil, x.e.Flock(x.ctx, f, a, meta.LockUnlock), "unlock of a lock not held")
	x.want(nil, x.e.Flock(x.ctx, f, c, meta.LockUnlock), "unlock")
	x.want(nil, x.e.Flock(x.ctx, f, a, meta.LockWrite), "exclusive flock after unlock")
	// flock and fcntl locks do not interact on Linux.
	x.want(nil, x.e.SetLk(x.ctx, f, b, meta.Lock{Type: meta.LockWrite, Start: 0, End: toEnd, Pid: 2}), "fcntl lock while another owner holds a flock")
	// The same owner number in another session is another owner.
	other := meta.LockOwner{Session: x.session("other"), Owner: a.Owner}
	x.want(meta.ErrAgain, x.e.Flock(x.ctx, f, other, meta.LockRead), "flock by the same owner number in another session")
	// Another file is independent.
	g := x.create(meta.RootIno, "g")
	x.want(nil, x.e.Flock(x.ctx, g, b, meta.LockWrite), "exclusive flock on another file")
}

func testFlockUpgrade(x *env) {
	f := x.create(meta.RootIno, "f")
	a := meta.LockOwner{Session: x.sid, Owner: 1}
	b := meta.LockOwner{Session: x.sid, Owner: 2}
	x.want(nil, x.e.Flock(x.ctx, f, a, meta.LockRead), "shared flock")
	x.want(nil, x.e.Flock(x.ctx, f, a, meta.LockWrite), "upgrade to exclusive by the only holder")
	x.want(meta.ErrAgain, x.e.Flock(x.ctx, f, b, meta.LockRead), "shared flock against the upgraded lock")
	x.want(nil, x.e.Flock(x.ctx, f, a, meta.LockRead), "downgrade to shared")
	x.want(nil, x.e.Flock(x.ctx, f, b, meta.LockRead), "shared flock beside the downgraded lock")
	x.want(meta.ErrAgain, x.e.Flock(x.ctx, f, a, meta.LockWrite), "upgrade while another holds a shared flock")
}

// getLk asks for l on behalf of owner and returns the answer.
func (x *env) getLk(ino meta.Ino, owner meta.LockOwner, typ uint32, start, end uint64) meta.Lock {
	x.t.Helper()
	got, err := x.e.GetLk(x.ctx, ino, owner, meta.Lock{Type: typ, Start: start, End: end, Pid: 99})
	x.must(err, "GetLk")
	return got
}

func (x *env) setLk(ino meta.Ino, owner meta.LockOwner, typ uint32, start, end uint64) error {
	return x.e.SetLk(x.ctx, ino, owner, meta.Lock{Type: typ, Start: start, End: end, Pid: uint32(owner.Owner)})
}

// free checks that owner may take a write lock on [start, end].
func (x *env) free(ino meta.Ino, owner meta.LockOwner, start, end uint64) {
	x.t.Helper()
	if got := x.getLk(ino, owner, meta.LockWrite, start, end); got.Type != meta.LockUnlock {
		x.t.Errorf("GetLk of [%d,%d]: conflicts with %+v, want free", start, end, got)
	}
}

// held checks that a write lock on [start, end] by owner conflicts with want.
func (x *env) held(ino meta.Ino, owner meta.LockOwner, start, end uint64, want meta.Lock) {
	x.t.Helper()
	if got := x.getLk(ino, owner, meta.LockWrite, start, end); got != want {
		x.t.Errorf("GetLk of [%d,%d] = %+v, want %+v", start, end, got, want)
	}
}

func testSetLkConflict(x *env) {
	f := x.create(meta.RootIno, "f")
	a := meta.LockOwner{Session: x.sid, Owner: 1}
	b := meta.LockOwner{Session: x.sid, Owner: 2}
	got := x.getLk(f, b, meta.LockWrite, 0, 99)
	if got.Type != meta.LockUnlock || got.Start != 0 || got.End != 99 {
		x.t.Errorf("GetLk on a file without locks = %+v, want the request back with type unlock", got)
	}
	x.want(nil, x.setLk(f, a, meta.LockWrite, 0, 99), "write lock [0,99]")
	x.held(f, b, 50, 60, meta.Lock{Type: meta.LockWrite, Start: 0, End: 99, Pid: 1})
	if got := x.getLk(f, b, meta.LockRead, 99, 200); got.Type != meta.LockWrite || got.Start != 0 || got.End != 99 {
		x.t.Errorf("GetLk of a read lock over [99,200] = %+v, want a's write lock [0,99]", got)
	}
	// The holder itself sees no conflict with its own locks.
	x.free(f, a, 0, 99)
	x.want(meta.ErrAgain, x.setLk(f, b, meta.LockWrite, 50, 60), "write lock inside another owner's write lock")
	x.want(meta.ErrAgain, x.setLk(f, b, meta.LockRead, 99, 99), "read lock on the last byte of another owner's write lock")
	x.want(nil, x.setLk(f, b, meta.LockWrite, 100, 199), "write lock right after another owner's")
	x.held(f, a, 150, 150, meta.Lock{Type: meta.LockWrite, Start: 100, End: 199, Pid: 2})
	x.want(nil, x.setLk(f, a, meta.LockUnlock, 0, toEnd), "unlock everything")
	x.free(f, b, 0, 99)
	x.want(nil, x.setLk(f, b, meta.LockWrite, 0, 99), "write lock after the holder unlocked")
	// Unlocking what one does not hold is fine.
	x.want(nil, x.setLk(f, a, meta.LockUnlock, 0, 10), "unlock of a range not held")
	x.held(f, a, 0, 0, meta.Lock{Type: meta.LockWrite, Start: 0, End: 199, Pid: 2})
}

func testSetLkReadShared(x *env) {
	f := x.create(meta.RootIno, "f")
	a := meta.LockOwner{Session: x.sid, Owner: 1}
	b := meta.LockOwner{Session: x.sid, Owner: 2}
	c := meta.LockOwner{Session: x.sid, Owner: 3}
	x.want(nil, x.setLk(f, a, meta.LockRead, 200, 299), "read lock")
	x.want(nil, x.setLk(f, b, meta.LockRead, 250, 350), "overlapping read lock of another owner")
	if got := x.getLk(f, c, meta.LockRead, 0, toEnd); got.Type != meta.LockUnlock {
		x.t.Errorf("GetLk of a read lock against read locks = %+v, want free", got)
	}
	x.want(meta.ErrAgain, x.setLk(f, c, meta.LockWrite, 300, 300), "write lock on a byte read-locked by another owner")
	x.want(meta.ErrAgain, x.setLk(f, a, meta.LockWrite, 200, 299), "upgrade of a read lock another owner overlaps")
	x.want(nil, x.setLk(f, a, meta.LockWrite, 200, 249), "upgrade of the part no other owner holds")
	x.want(nil, x.setLk(f, b, meta.LockUnlock, 0, toEnd), "unlock")
	x.want(nil, x.setLk(f, c, meta.LockWrite, 300, 300), "write lock once the overlapping read lock is gone")
}

// testSetLkSplitMerge checks fcntl's handling of one owner's ranges:
// unlocking the middle splits, a different type in the middle splits,
// adjacent ranges of one type merge.
func testSetLkSplitMerge(x *env) {
	f := x.create(meta.RootIno, "f")
	a := meta.LockOwner{Session: x.sid, Owner: 1}
	b := meta.LockOwner{Session: x.sid, Owner: 2}
	x.want(nil, x.setLk(f, a, meta.LockWrite, 0, 99), "write lock [0,99]")
	x.want(nil, x.setLk(f, a, meta.LockUnlock, 40, 59), "unlock of the middle [40,59]")
	x.free(f, b, 40, 59)
	x.held(f, b, 30, 45, meta.Lock{Type: meta.LockWrite, Start: 0, End: 39, Pid: 1})
	x.held(f, b, 55, 70, meta.Lock{Type: meta.LockWrite, Start: 60, End: 99, Pid: 1})
	x.want(nil, x.setLk(f, b, meta.LockWrite, 40, 59), "write lock in the unlocked middle")
	x.want(nil, x.setLk(f, b, meta.LockUnlock, 40, 59), "unlock")

	// Adjacent and overlapping ranges of one owner and type merge.
	x.want(nil, x.setLk(f, a, meta.LockWrite, 40, 59), "write lock filling the gap")
	x.held(f, b, 0, 99, meta.Lock{Type: meta.LockWrite, Start: 0, End: 99, Pid: 1})
	x.want(nil, x.setLk(f, a, meta.LockWrite, 100, 109), "adjacent write lock")
	x.want(nil, x.setLk(f, a, meta.LockWrite, 105, 120), "overlapping write lock")
	x.held(f, b, 0, 200, meta.Lock{Type: meta.LockWrite, Start: 0, End: 120, Pid: 1})

	// A read lock in the middle of one's own write lock splits it in three.
	x.want(nil, x.setLk(f, a, meta.LockRead, 40, 59), "read lock inside one's own write lock")
	if got := x.getLk(f, b, meta.LockRead, 40, 59); got.Type != meta.LockUnlock {
		x.t.Errorf("read GetLk over the downgraded middle = %+v, want free", got)
	}
	x.held(f, b, 40, 59, meta.Lock{Type: meta.LockRead, Start: 40, End: 59, Pid: 1})
	if got := x.getLk(f, b, meta.LockRead, 30, 45); got.Type != meta.LockWrite || got.Start != 0 || got.End != 39 {
		x.t.Errorf("read GetLk over [30,45] = %+v, want the write lock [0,39]", got)
	}
	x.want(nil, x.setLk(f, b, meta.LockRead, 45, 50), "read lock beside another owner's read lock")
	x.want(meta.ErrAgain, x.setLk(f, b, meta.LockRead, 60, 60), "read lock on another owner's write lock")
	// Unlocking the whole range drops all three pieces.
	x.want(nil, x.setLk(f, a, meta.LockUnlock, 0, 120), "unlock [0,120]")
	x.want(nil, x.setLk(f, b, meta.LockUnlock, 0, toEnd), "unlock")
	x.free(f, b, 0, toEnd)
}

func testSetLkToEnd(x *env) {
	f := x.create(meta.RootIno, "f")
	a := meta.LockOwner{Session: x.sid, Owner: 1}
	b := meta.LockOwner{Session: x.sid, Owner: 2}
	x.want(nil, x.setLk(f, a, meta.LockWrite, 100, toEnd), "write lock to the end of the file")
	x.want(meta.ErrAgain, x.setLk(f, b, meta.LockWrite, 1<<40, 1<<40), "write lock far past the end")
	x.held(f, b, 1<<50, toEnd, meta.Lock{Type: meta.LockWrite, Start: 100, End: toEnd, Pid: 1})
	x.want(nil, x.setLk(f, b, meta.LockWrite, 0, 99), "write lock before the range")
	x.want(nil, x.setLk(f, a, meta.LockUnlock, 1000, toEnd), "unlock of the tail")
	x.want(nil, x.setLk(f, b, meta.LockWrite, 1000, toEnd), "write lock on the unlocked tail")
	x.held(f, b, 500, 600, meta.Lock{Type: meta.LockWrite, Start: 100, End: 999, Pid: 1})
}

// Owners in different sessions are different even with equal Owner.
func testSetLkOwners(x *env) {
	f := x.create(meta.RootIno, "f")
	other := x.session("other")
	a := meta.LockOwner{Session: x.sid, Owner: 5}
	b := meta.LockOwner{Session: other, Owner: 5}
	x.want(nil, x.setLk(f, a, meta.LockWrite, 0, 10), "write lock")
	x.want(meta.ErrAgain, x.setLk(f, b, meta.LockWrite, 0, 10), "write lock by the same owner number in another session")
}

func testSetLkFiles(x *env) {
	f := x.create(meta.RootIno, "f")
	g := x.create(meta.RootIno, "g")
	a := meta.LockOwner{Session: x.sid, Owner: 1}
	b := meta.LockOwner{Session: x.sid, Owner: 2}
	x.want(nil, x.setLk(f, a, meta.LockWrite, 0, toEnd), "write lock on f")
	x.want(nil, x.setLk(g, b, meta.LockWrite, 0, toEnd), "write lock on g by another owner")
}

// testSetLkMergedPid pins the pid GetLk reports for ranges that merged:
// Linux extends the owner's existing lock, so the older range's pid
// stays, even when the new request starts lower (meta.ApplyLock).
func testSetLkMergedPid(x *env) {
	f := x.create(meta.RootIno, "f")
	a := meta.LockOwner{Session: x.sid, Owner: 1}
	b := meta.LockOwner{Session: x.sid, Owner: 2}
	set := func(start, end uint64, pid uint32) {
		x.t.Helper()
		x.want(nil, x.e.SetLk(x.ctx, f, a, meta.Lock{Type: meta.LockWrite, Start: start, End: end, Pid: pid}),
			"write lock [%d,%d] by pid %d", start, end, pid)
	}
	set(10, 19, 7)
	set(0, 9, 8) // touches [10,19]
	x.held(f, b, 0, 0, meta.Lock{Type: meta.LockWrite, Start: 0, End: 19, Pid: 7})
	set(30, 39, 9)
	set(15, 35, 8) // bridges [0,19] and [30,39]
	x.held(f, b, 0, 0, meta.Lock{Type: meta.LockWrite, Start: 0, End: 39, Pid: 7})
	set(50, 59, 9)
	x.held(f, b, 55, 55, meta.Lock{Type: meta.LockWrite, Start: 50, End: 59, Pid: 9})
}
