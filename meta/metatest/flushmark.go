package metatest

import (
	"sync"

	"cairn/meta"
)

// A FlushMark makes AddDirStats and AddQuotaUsage count once: the same
// marked call sent again, late, or twice at once changes nothing more,
// and the marks' records are not statistics.
func testFlushMarks(x *env) {
	s := x.dirStatStore()
	key := meta.NewFlushMarkKey()
	mark := func(seq uint64) meta.FlushMark { return meta.FlushMark{Key: key, Seq: seq} }
	one := map[meta.Ino]meta.DirStat{20: {Space: 4096, Inodes: 1}}
	x.must(s.AddDirStats(x.ctx, one, nil, mark(1)), "AddDirStats marked 1")
	x.must(s.AddDirStats(x.ctx, one, nil, mark(1)), "AddDirStats marked 1, again")
	x.must(s.AddDirStats(x.ctx, map[meta.Ino]meta.DirStat{21: {Inodes: 2}}, []meta.Ino{22}, mark(2)), "AddDirStats marked 2")
	x.must(s.AddDirStats(x.ctx, one, nil, mark(1)), "AddDirStats marked 1, after 2")
	x.sameStats("after marks 1, 1, 2, 1", x.allStats(), map[meta.Ino]meta.DirStat{20: {Space: 4096, Inodes: 1}, 21: {Inodes: 2}})

	// Another key is another writer; forgetting a key's record (as a
	// closing client does) makes its numbers count again.
	x.must(s.AddDirStats(x.ctx, one, nil, meta.FlushMark{Key: meta.NewFlushMarkKey(), Seq: 1}), "AddDirStats with another key")
	x.must(s.AddDirStats(x.ctx, nil, []meta.Ino{key}, meta.FlushMark{}), "forget the mark's record")
	x.must(s.AddDirStats(x.ctx, map[meta.Ino]meta.DirStat{21: {Inodes: 1}}, nil, mark(1)), "AddDirStats marked 1 after the record was forgotten")
	x.sameStats("after another key and a forgotten record", x.allStats(), map[meta.Ino]meta.DirStat{20: {Space: 8192, Inodes: 2}, 21: {Inodes: 3}})

	// More directories than one etcd transaction holds, sent twice: each
	// part of the call is marked.
	many := map[meta.Ino]meta.DirStat{}
	want := x.allStats()
	for dir := meta.Ino(100); dir < 230; dir++ {
		many[dir] = meta.DirStat{Inodes: 1}
		want[dir] = meta.DirStat{Inodes: 1}
	}
	x.must(s.AddDirStats(x.ctx, many, nil, mark(3)), "AddDirStats of 130 directories")
	x.must(s.AddDirStats(x.ctx, many, nil, mark(3)), "AddDirStats of 130 directories, again")
	x.sameStats("after 130 directories sent twice", x.allStats(), want)

	// Two copies of each call at once: one counts.
	for seq := uint64(4); seq < 12; seq++ {
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i := range errs {
			wg.Go(func() { errs[i] = s.AddDirStats(x.ctx, map[meta.Ino]meta.DirStat{23: {Inodes: 1}}, nil, mark(seq)) })
		}
		wg.Wait()
		for _, err := range errs {
			x.must(err, "AddDirStats marked %d, two at once", seq)
		}
	}
	want[23] = meta.DirStat{Inodes: 8}
	x.sameStats("after 8 calls sent twice at once", x.allStats(), want)

	quotas, ok := meta.Capability[meta.QuotaStore](x.e)
	if !ok {
		return
	}
	x.must(quotas.SetQuota(x.ctx, 30, meta.Quota{MaxInodes: 100}), "SetQuota")
	qmark := meta.FlushMark{Key: key + 1, Seq: 1}
	for range 2 {
		x.must(quotas.AddQuotaUsage(x.ctx, map[meta.Ino]meta.DirStat{30: {Space: 4096, Inodes: 1}}, qmark), "AddQuotaUsage marked 1")
	}
	x.must(quotas.AddQuotaUsage(x.ctx, map[meta.Ino]meta.DirStat{30: {Inodes: 1}}, meta.FlushMark{Key: key + 1, Seq: 2}), "AddQuotaUsage marked 2")
	all, err := quotas.Quotas(x.ctx)
	x.must(err, "Quotas")
	if got := all[30]; got.Space != 4096 || got.Inodes != 2 {
		x.t.Errorf("quota usage after marks 1, 1, 2: %d bytes, %d inodes; want 4096 and 2", got.Space, got.Inodes)
	}
	x.sameStats("after marked quota usage", x.allStats(), want)
}
