package metatest

import (
	"context"
	"sync/atomic"

	"cairn/meta"
)

// listingCounter is an engine that counts the directories listed (each
// Readdir from the first name).
type listingCounter struct {
	meta.Engine
	listed atomic.Int64
}

func (l *listingCounter) Unwrap() meta.Engine { return l.Engine }

func (l *listingCounter) Readdir(ctx context.Context, dir meta.Ino, after string, limit int, plus bool) ([]meta.Entry, error) {
	if after == "" {
		l.listed.Add(1)
	}
	return l.Engine.Readdir(ctx, dir, after, limit, plus)
}

// RepairDirStats repairs every quota of the tree, nested ones included,
// from one count that lists each directory once (not once per quota);
// CheckQuota --repair of the outer quota repairs the nested ones too.
func testQuotaRepairNested(x *env) {
	c := x.quotaClient()
	o := quotaOps{x, c}
	outer := o.mkdir(meta.RootIno, "outer")
	inner := o.mkdir(outer, "inner")
	deep := o.mkdir(inner, "deep")
	o.write(o.create(deep, "f", nil), 8<<10, nil)
	o.create(inner, "g", nil)
	for _, q := range []meta.Ino{outer, inner, deep} {
		_, err := c.SetQuota(x.ctx, q, 0, 100)
		x.must(err, "SetQuota %d", q)
	}
	x.must(c.FlushDirStats(x.ctx), "FlushDirStats")
	store, _ := meta.Capability[meta.QuotaStore](x.e)
	corrupt := func() {
		for _, q := range []meta.Ino{outer, inner, deep} {
			x.must(store.SetQuota(x.ctx, q, meta.Quota{MaxInodes: 100, Inodes: 50, Space: 3}), "corrupt quota %d", q)
		}
	}
	want := map[meta.Ino]meta.DirStat{outer: {Space: 8 << 10, Inodes: 4}, inner: {Space: 8 << 10, Inodes: 3}, deep: {Space: 8 << 10, Inodes: 1}}
	wantQuotas := func(when string) {
		x.t.Helper()
		for q, w := range want {
			got, err := meta.GetQuota(x.ctx, x.e, q)
			x.must(err, "GetQuota %d", q)
			if got.Space != w.Space || got.Inodes != w.Inodes {
				x.t.Errorf("%s: quota %d uses %d bytes and %d inodes, want %+v", when, q, got.Space, got.Inodes, w)
			}
		}
	}
	corrupt()
	counter := &listingCounter{Engine: x.e}
	done, err := meta.RepairDirStats(x.ctx, counter, meta.RootIno)
	x.must(err, "RepairDirStats")
	if done.Quotas != 3 {
		x.t.Errorf("RepairDirStats repaired %d quotas, want 3", done.Quotas)
	}
	if n := counter.listed.Load(); n != 4 {
		x.t.Errorf("RepairDirStats listed directories %d times, want the 4 directories once each", n)
	}
	wantQuotas("after RepairDirStats")
	corrupt()
	_, _, err = meta.CheckQuota(x.ctx, x.e, outer, true)
	x.must(err, "CheckQuota --repair of the outer quota")
	wantQuotas("after CheckQuota --repair of the outer quota")
}
