package metatest

import (
	"cairn/meta"
)

func repairTests() []test {
	return []test{
		{"Repair/Counters", testRepairCounters},
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
