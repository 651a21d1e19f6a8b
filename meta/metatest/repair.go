package metatest

import (
	"cairn/meta"
)

func repairTests() []test {
	return []test{
		{"Repair/Counters", testRepairCounters},
		{"Repair/OrphanList", testOrphanList},
	}
}

// testRepairCounters: meta.Repairer changes a link count and the usage by
// a difference, Verify sees the damage, and the opposite difference
// repairs it; a count that would leave its range, or a missing inode, is
// refused and changes nothing.
func testRepairCounters(x *env) {
	r, ok := meta.Capability[meta.Repairer](x.e)
	if !ok {
		x.t.Fatalf("the %s engine does not implement meta.Repairer", x.e.Name())
	}
	d := x.mkdir(meta.RootIno, "d")
	f := x.create(d, "f")
	x.write(f, 0, 0, 5000)
	base := x.usage()

	x.must(r.AdjustNlink(x.ctx, f, 2), "AdjustNlink +2")
	if a := x.attr(f); a.Nlink != 3 || a.Length != 5000 {
		x.t.Errorf("after AdjustNlink +2 of a file with one link: %+v, want nlink 3 and length 5000", a)
	}
	x.must(r.AdjustNlink(x.ctx, d, -1), "AdjustNlink -1 of a directory")
	if err := Verify(x.ctx, x.e); err == nil {
		x.t.Errorf("Verify found nothing wrong with a file of nlink 3 and a directory of nlink 1")
	}
	x.must(r.AdjustNlink(x.ctx, f, -2), "AdjustNlink -2")
	x.must(r.AdjustNlink(x.ctx, d, 1), "AdjustNlink +1 of a directory")
	if err := Verify(x.ctx, x.e); err != nil {
		x.t.Errorf("after undoing the link counts: %v", err)
	}

	x.want(meta.ErrInvalid, r.AdjustNlink(x.ctx, f, -2), "AdjustNlink below 0")
	x.want(meta.ErrInvalid, r.AdjustNlink(x.ctx, f, 1<<32), "AdjustNlink past 2^32-1")
	x.want(meta.ErrNotFound, r.AdjustNlink(x.ctx, x.newIno(), 1), "AdjustNlink of a missing inode")
	if a := x.attr(f); a.Nlink != 1 {
		x.t.Errorf("a refused AdjustNlink changed nlink to %d", a.Nlink)
	}

	x.must(r.AdjustUsage(x.ctx, 8192, 3), "AdjustUsage +")
	if u := x.usage(); u.Space != base.Space+8192 || u.Inodes != base.Inodes+3 {
		x.t.Errorf("Usage after AdjustUsage(8192, 3) = %+v, was %+v", u, base)
	}
	if err := Verify(x.ctx, x.e); err == nil {
		x.t.Errorf("Verify found nothing wrong with usage off by 8192 bytes and 3 inodes")
	}
	x.must(r.AdjustUsage(x.ctx, -8192, -3), "AdjustUsage -")
	if u := x.usage(); u != base {
		x.t.Errorf("Usage after undoing AdjustUsage = %+v, want %+v", u, base)
	}
}

// testOrphanList: meta.OrphanLister lists exactly the inodes unlinked
// while open and not yet released, of every session.
func testOrphanList(x *env) {
	l, ok := meta.Capability[meta.OrphanLister](x.e)
	if !ok {
		x.t.Fatalf("the %s engine does not implement meta.OrphanLister", x.e.Name())
	}
	list := func() map[meta.Ino]bool {
		inos, err := l.Orphans(x.ctx)
		x.must(err, "Orphans")
		got := map[meta.Ino]bool{}
		for _, ino := range inos {
			got[ino] = true
		}
		return got
	}
	if got := list(); len(got) != 0 {
		x.t.Errorf("Orphans of a fresh volume = %v", got)
	}
	a := x.create(meta.RootIno, "a")
	b := x.create(meta.RootIno, "b")
	x.create(meta.RootIno, "c")
	x.write(a, 0, 0, 100)
	x.unlink(meta.RootIno, "a")
	other := x.session("other-host")
	_, _, err := x.e.Unlink(x.ctx, meta.RootCred, meta.RootIno, "b", other)
	x.must(err, "Unlink for another session")
	if got := list(); len(got) != 2 || !got[a] || !got[b] {
		x.t.Errorf("Orphans = %v, want %d and %d", got, a, b)
	}
	x.release(a)
	x.must(x.e.ReleaseOrphan(x.ctx, other, b), "ReleaseOrphan for another session")
	if got := list(); len(got) != 0 {
		x.t.Errorf("Orphans after both were released = %v", got)
	}
}
