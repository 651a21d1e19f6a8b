package migrate

import (
	"context"
	"testing"

	"cairn/meta"
)

// changeUsage changes the directory statistics and quotas through e (a
// tracked client's engine), as a mount does behind the change log's back:
// before the bulk copy (before true), a flush and two quotas; after it, a
// flush adding to one directory and forgetting another's statistics, a
// quota's limits changed, one removed and one set.
func changeUsage(t *testing.T, e meta.Engine, before bool) {
	t.Helper()
	ctx := context.Background()
	stats, ok := meta.Capability[meta.DirStatStore](e)
	quotas, ok2 := meta.Capability[meta.QuotaStore](e)
	if !ok || !ok2 {
		t.Fatalf("the %s engine keeps no statistics or quotas", e.Name())
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	if before {
		must(stats.AddDirStats(ctx, map[meta.Ino]meta.DirStat{900001: {Space: 4096, Inodes: 1}, 900002: {Inodes: 3}}, nil, meta.FlushMark{}))
		must(quotas.SetQuota(ctx, 900001, meta.Quota{MaxInodes: 10, Inodes: 1}))
		must(quotas.SetQuota(ctx, 900002, meta.Quota{MaxSpace: 1 << 20}))
		return
	}
	must(stats.AddDirStats(ctx, map[meta.Ino]meta.DirStat{900001: {Space: 8192, Inodes: 2}, 900003: {Inodes: 1}}, []meta.Ino{900002}, meta.FlushMark{}))
	must(quotas.SetQuota(ctx, 900001, meta.Quota{MaxInodes: 20, Inodes: 3}))
	must(quotas.DeleteQuota(ctx, 900002))
	must(quotas.SetQuota(ctx, 900003, meta.Quota{MaxInodes: 5, Inodes: 1}))
}

// checkSameUsage wants dst's directory statistics and quotas equal to
// src's.
func checkSameUsage(t *testing.T, src, dst meta.Engine) {
	t.Helper()
	ctx := context.Background()
	stats := func(e meta.Engine) map[meta.Ino]meta.DirStat {
		s, ok := meta.Capability[meta.DirStatStore](e)
		if !ok {
			t.Fatalf("the %s engine keeps no statistics", e.Name())
		}
		all, err := s.AllDirStats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return all
	}
	quotas := func(e meta.Engine) map[meta.Ino]meta.Quota {
		q, ok := meta.Capability[meta.QuotaStore](e)
		if !ok {
			t.Fatalf("the %s engine keeps no quotas", e.Name())
		}
		all, err := q.Quotas(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return all
	}
	want, got := stats(src), stats(dst)
	if want[900001] != (meta.DirStat{Space: 12288, Inodes: 3}) || want[900003] != (meta.DirStat{Inodes: 1}) || want[900002] != (meta.DirStat{}) {
		t.Errorf("SRC's statistics are not what changeUsage wrote: %+v, %+v, %+v", want[900001], want[900002], want[900003])
	}
	for _, dir := range union(want, got) {
		if want[dir] != got[dir] {
			t.Errorf("statistics of directory %d: SRC %+v, DST %+v", dir, want[dir], got[dir])
		}
	}
	wantQ, gotQ := quotas(src), quotas(dst)
	for _, dir := range union(wantQ, gotQ) {
		if wantQ[dir] != gotQ[dir] {
			t.Errorf("quota on %d: SRC %+v, DST %+v", dir, wantQ[dir], gotQ[dir])
		}
	}
}
