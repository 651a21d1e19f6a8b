package metatest

import (
	"cairn/meta"
)

// An exchange of two directories in different quota trees moves each
// tree's usage the other way, and is judged both ways: each side gains
// what the other brings less what it gives.
func testQuotaExchange(x *env) {
	c := x.quotaClient()
	o := quotaOps{x, c}
	q1 := o.mkdir(meta.RootIno, "q1")
	q2 := o.mkdir(meta.RootIno, "q2")
	a := o.mkdir(q1, "a")
	o.write(o.create(a, "small", nil), 4<<10, nil)
	b := o.mkdir(q2, "b")
	o.write(o.create(b, "big", nil), 16<<10, nil)
	_, err := c.SetQuota(x.ctx, q1, 12<<10, 0)
	x.must(err, "SetQuota q1")
	_, err = c.SetQuota(x.ctx, q2, 0, 100)
	x.must(err, "SetQuota q2")
	_, _, _, err = c.Rename(x.ctx, meta.RootCred, q2, "b", q1, "a", meta.RenameExchange)
	x.want(meta.ErrQuota, err, "exchange q2/b (16 KiB) with q1/a (4 KiB) under q1's 12 KiB quota")
	_, _, _, err = c.Rename(x.ctx, meta.RootCred, q1, "a", q2, "b", meta.RenameExchange)
	x.want(meta.ErrQuota, err, "the same exchange asked from q1's side")
	if got := o.quota(q1); got.Space != 4<<10 || got.Inodes != 2 {
		x.t.Errorf("q1 after the refused exchanges %+v, want 4 KiB and 2 inodes", got)
	}
	_, err = c.SetQuota(x.ctx, q1, 16<<10, 0)
	x.must(err, "SetQuota q1 larger")
	_, _, _, err = c.Rename(x.ctx, meta.RootCred, q1, "a", q2, "b", meta.RenameExchange)
	x.must(err, "exchange q1/a and q2/b under a 16 KiB quota")
	if got := o.quota(q1); got.Space != 16<<10 || got.Inodes != 2 {
		x.t.Errorf("q1 after the exchange %+v, want b's 16 KiB and 2 inodes", got)
	}
	if got := o.quota(q2); got.Space != 4<<10 || got.Inodes != 2 {
		x.t.Errorf("q2 after the exchange %+v, want a's 4 KiB and 2 inodes", got)
	}
	// The client now knows a in q2: a file grown in it counts there.
	o.create(a, "more", nil)
	if got := o.quota(q2); got.Inodes != 3 {
		x.t.Errorf("q2 after a create in the exchanged a: %d inodes, want 3", got.Inodes)
	}
	for _, q := range []meta.Ino{q1, q2} {
		recorded, counted, err := meta.CheckQuota(x.ctx, x.e, q, false)
		x.must(err, "CheckQuota %d", q)
		if recorded.Space != counted.Space || recorded.Inodes != counted.Inodes {
			x.t.Errorf("quota %d records %+v, a full count finds %+v", q, recorded, counted)
		}
	}
}

// A hard link of a file this client never saw is judged on the file's
// real size, not on zero.
func testQuotaLinkUncached(x *env) {
	c := x.quotaClient()
	o := quotaOps{x, c}
	q := o.mkdir(meta.RootIno, "q")
	_, err := c.SetQuota(x.ctx, q, 64<<10, 0)
	x.must(err, "SetQuota")
	other := quotaOps{x, x.statsClient()}
	big := other.create(meta.RootIno, "big", nil)
	other.write(big, 1<<20, nil)
	_, err = c.Link(x.ctx, meta.RootCred, big, q, "link")
	x.want(meta.ErrQuota, err, "Link a 1 MiB file another client wrote into a 64 KiB quota")
	small := other.create(meta.RootIno, "small", nil)
	other.write(small, 8<<10, nil)
	_, err = c.Link(x.ctx, meta.RootCred, small, q, "link")
	x.must(err, "Link an 8 KiB file into the quota")
	if got := o.quota(q); got.Space != 8<<10 || got.Inodes != 1 {
		x.t.Errorf("quota after the link %+v, want 8 KiB and 1 inode", got)
	}
}

// A clone into a quota tree that cannot take the copy is refused with
// EDQUOT before anything is copied; one that fits is counted.
func testQuotaClone(x *env) {
	c := x.quotaClient()
	if _, ok := meta.Capability[meta.Cloner](x.e); !ok {
		x.t.Skip("this engine has no meta.Cloner")
	}
	o := quotaOps{x, c}
	q := o.mkdir(meta.RootIno, "q")
	src := o.mkdir(meta.RootIno, "src")
	o.write(o.create(src, "f", nil), 8<<10, nil)
	sub := o.mkdir(src, "sub")
	o.write(o.create(sub, "g", nil), 8<<10, nil)
	_, err := c.SetQuota(x.ctx, q, 12<<10, 0)
	x.must(err, "SetQuota")
	_, err = c.CloneTree(x.ctx, meta.RootCred, src, q, "copy", false, nil)
	x.want(meta.ErrQuota, err, "clone a 16 KiB tree into a 12 KiB quota")
	_, _, err = x.e.Lookup(x.ctx, q, "copy")
	x.want(meta.ErrNotFound, err, "Lookup the refused clone")
	_, err = c.SetQuota(x.ctx, q, 16<<10, 4)
	x.must(err, "SetQuota 16 KiB and 4 inodes")
	_, err = c.CloneTree(x.ctx, meta.RootCred, src, q, "copy", false, nil)
	x.must(err, "clone the 16 KiB tree into a 16 KiB quota")
	if got := o.quota(q); got.Space != 16<<10 || got.Inodes != 4 {
		x.t.Errorf("quota after the clone %+v, want 16 KiB and 4 inodes", got)
	}
	_, err = c.CloneTree(x.ctx, meta.RootCred, sub, q, "one-more", false, nil)
	x.want(meta.ErrQuota, err, "clone past the inode limit")
}
