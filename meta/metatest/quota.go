package metatest

import (
	"time"

	"cairn/meta"
)

// Directory quotas (meta.QuotaStore), enforced by meta.Client.
func quotaTests() []test {
	return []test{
		{"Quota/Enforce", testQuotaEnforce},
		{"Quota/Nest", testQuotaNest},
		{"Quota/Rename", testQuotaRename},
		{"Quota/Check", testQuotaCheck},
		{"Quota/Exchange", testQuotaExchange},
		{"Quota/LinkUncached", testQuotaLinkUncached},
		{"Quota/Clone", testQuotaClone},
		{"Quota/RepairNested", testQuotaRepairNested},
	}
}

// quotaClient is a started client on an engine with quotas; the subtest
// is skipped on one without.
func (x *env) quotaClient() *meta.Client {
	x.t.Helper()
	if _, ok := meta.Capability[meta.QuotaStore](x.e); !ok {
		x.t.Skip("this engine has no meta.QuotaStore")
	}
	return x.statsClient()
}

// quotaOps are the client calls the quota subtests make, failing the
// test on an error other than want.
type quotaOps struct {
	x *env
	c *meta.Client
}

func (o quotaOps) mkdir(parent meta.Ino, name string) meta.Ino {
	o.x.t.Helper()
	ino, _, err := o.c.Mknod(o.x.ctx, meta.RootCred, parent, name, meta.TypeDirectory, 0o755, 0, "")
	o.x.must(err, "Mkdir %q in %d", name, parent)
	return ino
}

func (o quotaOps) create(parent meta.Ino, name string, want error) meta.Ino {
	o.x.t.Helper()
	ino, _, err := o.c.Mknod(o.x.ctx, meta.RootCred, parent, name, meta.TypeFile, 0o644, 0, "")
	o.x.want(want, err, "create %q in %d", name, parent)
	return ino
}

// write is a write(2) through a mount: the growth is checked when the
// application writes (vfs), and the slice committed after, without a
// second check that could refuse data already accepted.
func (o quotaOps) write(ino meta.Ino, end uint32, want error) {
	o.x.t.Helper()
	err := o.c.CheckGrowth(o.x.ctx, ino, uint64(end))
	if err == nil {
		var id uint64
		id, err = o.c.NewSliceID(o.x.ctx)
		o.x.must(err, "NewSliceID")
		_, _, err = o.c.Write(o.x.ctx, ino, 0, meta.Slice{ID: id, Size: end, Len: end}, time.Now().UnixNano())
	}
	o.x.want(want, err, "write %d bytes to %d", end, ino)
}

func (o quotaOps) quota(dir meta.Ino) meta.Quota {
	o.x.t.Helper()
	o.x.must(o.c.FlushDirStats(o.x.ctx), "FlushDirStats")
	q, err := meta.GetQuota(o.x.ctx, o.x.e, dir)
	o.x.must(err, "GetQuota %d", dir)
	return q
}

// A quota refuses creates, writes past the end, truncates up and links
// beyond its limits with EDQUOT, exactly at the limit; its usage follows
// the tree after a flush.
func testQuotaEnforce(x *env) {
	c := x.quotaClient()
	o := quotaOps{x, c}
	q := o.mkdir(meta.RootIno, "q")
	_, err := c.SetQuota(x.ctx, q, 64<<10, 3)
	x.must(err, "SetQuota")
	f := o.create(q, "f", nil)
	o.write(f, 60<<10, nil)
	o.write(f, 64<<10, nil)
	o.write(f, 64<<10+1, meta.ErrQuota)
	_, err = c.Truncate(x.ctx, meta.RootCred, f, 65<<10)
	x.want(meta.ErrQuota, err, "Truncate past the quota")
	o.create(q, "g", nil)
	o.create(q, "h", nil)
	o.create(q, "i", meta.ErrQuota)
	outside := o.create(meta.RootIno, "outside", nil)
	_, err = c.Link(x.ctx, meta.RootCred, outside, q, "link")
	x.want(meta.ErrQuota, err, "Link into a full quota")
	if got := o.quota(q); got.Space != 64<<10 || got.Inodes != 3 || got.MaxSpace != 64<<10 || got.MaxInodes != 3 {
		x.t.Errorf("quota after the writes %+v, want 64 KiB and 3 inodes used of 64 KiB and 3", got)
	}
	_, _, err = c.Unlink(x.ctx, meta.RootCred, q, "g")
	x.must(err, "Unlink q/g")
	o.create(q, "j", nil) // the unlink freed an inode
}

// Quotas nest: a change must fit every quota above it.
func testQuotaNest(x *env) {
	c := x.quotaClient()
	o := quotaOps{x, c}
	outer := o.mkdir(meta.RootIno, "outer")
	inner := o.mkdir(outer, "inner")
	_, err := c.SetQuota(x.ctx, outer, 0, 4)
	x.must(err, "SetQuota outer")
	_, err = c.SetQuota(x.ctx, inner, 1<<20, 100)
	x.must(err, "SetQuota inner")
	for _, name := range []string{"a", "b", "c"} {
		o.create(inner, name, nil)
	}
	o.create(inner, "d", meta.ErrQuota) // outer holds inner and a, b, c
	if got := o.quota(outer); got.Inodes != 4 {
		x.t.Errorf("outer's quota counts %d inodes, want 4", got.Inodes)
	}
	if got := o.quota(inner); got.Inodes != 3 {
		x.t.Errorf("inner's quota counts %d inodes, want 3", got.Inodes)
	}
}

// A directory renamed into a quota tree brings its whole usage, and is
// refused when that does not fit; out of it, the usage leaves.
func testQuotaRename(x *env) {
	c := x.quotaClient()
	o := quotaOps{x, c}
	q := o.mkdir(meta.RootIno, "q")
	src := o.mkdir(meta.RootIno, "src")
	sub := o.mkdir(src, "sub")
	o.write(o.create(src, "f", nil), 8192, nil)
	o.write(o.create(sub, "g", nil), 8192, nil)
	_, err := c.SetQuota(x.ctx, q, 12<<10, 0)
	x.must(err, "SetQuota")
	_, _, _, err = c.Rename(x.ctx, meta.RootCred, meta.RootIno, "src", q, "src", 0)
	x.want(meta.ErrQuota, err, "Rename a 16 KiB tree into a 12 KiB quota")
	_, err = c.SetQuota(x.ctx, q, 1<<20, 0)
	x.must(err, "SetQuota larger")
	_, _, _, err = c.Rename(x.ctx, meta.RootCred, meta.RootIno, "src", q, "src", 0)
	x.must(err, "Rename the tree into the quota")
	if got := o.quota(q); got.Space != 16<<10 || got.Inodes != 4 {
		x.t.Errorf("quota after the tree moved in %+v, want 16 KiB and 4 inodes", got)
	}
	_, _, _, err = c.Rename(x.ctx, meta.RootCred, q, "src", meta.RootIno, "back", 0)
	x.must(err, "Rename the tree out")
	if got := o.quota(q); got.Space != 0 || got.Inodes != 0 {
		x.t.Errorf("quota after the tree moved out %+v, want nothing used", got)
	}
}

// CheckQuota compares with a full count and repairs a wrong usage;
// quotas on a file or a missing inode are refused.
func testQuotaCheck(x *env) {
	c := x.quotaClient()
	o := quotaOps{x, c}
	q := o.mkdir(meta.RootIno, "q")
	f := o.create(q, "f", nil)
	_, err := c.SetQuota(x.ctx, q, 0, 10)
	x.must(err, "SetQuota")
	store, _ := meta.Capability[meta.QuotaStore](x.e)
	x.must(store.SetQuota(x.ctx, q, meta.Quota{MaxInodes: 10, Inodes: 7, Space: 5}), "corrupt the quota's usage")
	recorded, counted, err := meta.CheckQuota(x.ctx, x.e, q, true)
	x.must(err, "CheckQuota --repair")
	if recorded.Inodes != 7 || counted != (meta.DirStat{Inodes: 1}) {
		x.t.Errorf("CheckQuota recorded %+v counted %+v, want 7 inodes recorded and 1 counted", recorded, counted)
	}
	if got := o.quota(q); got.Inodes != 1 || got.Space != 0 || got.MaxInodes != 10 {
		x.t.Errorf("quota after the repair %+v, want 1 inode used of 10", got)
	}
	_, err = meta.SetQuota(x.ctx, x.e, f, 0, 1)
	x.want(meta.ErrNotDir, err, "SetQuota on a file")
	_, err = meta.SetQuota(x.ctx, x.e, 987654, 0, 1)
	x.want(meta.ErrNotFound, err, "SetQuota on a missing inode")
	x.want(meta.ErrNotFound, meta.DeleteQuota(x.ctx, x.e, f), "DeleteQuota where there is none")
	x.must(meta.DeleteQuota(x.ctx, x.e, q), "DeleteQuota")
	_, err = meta.GetQuota(x.ctx, x.e, q)
	x.want(meta.ErrNotFound, err, "GetQuota after DeleteQuota")
}
