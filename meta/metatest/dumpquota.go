package metatest

import (
	"maps"
	"testing"

	"cairn/meta"
)

// dumpQuotas: meta.VolumeDumper carries the directory statistics and
// quotas into another database, where the quota still refuses what it
// refused before; the engine's own Dump (what fsck and gc walk) holds
// neither.
func dumpQuotas(t *testing.T, open func(t *testing.T) meta.Engine) {
	x := newEnv(t, open)
	c := x.quotaClient()
	o := quotaOps{x, c}
	populate(x)
	q := o.mkdir(meta.RootIno, "q")
	_, err := c.SetQuota(x.ctx, q, 1<<30, 3)
	x.must(err, "SetQuota")
	f := o.create(q, "f", nil)
	o.write(f, 5000, nil)
	o.mkdir(q, "sub")
	used := o.quota(q) // flushes the statistics
	if used.Inodes != 2 || used.Space != 8192 {
		t.Fatalf("quota before the dump: %+v, want 2 inodes and 8192 bytes", used)
	}
	stats, err := x.dirStatStore().AllDirStats(x.ctx)
	x.must(err, "AllDirStats")
	if len(stats) < 2 {
		t.Fatalf("the source has statistics of %d directories, want at least the root and q", len(stats))
	}

	volume, ok := meta.VolumeDumper(x.e)
	if !ok {
		t.Fatal("meta.VolumeDumper finds no Dumper")
	}
	first := dumpRecords(t, volume)
	if n := first.count(meta.DumpQuota); n != 1 {
		t.Errorf("the volume's dump holds %d quota records, want 1", n)
	}
	if n := first.count(meta.DumpDirStat); n != len(stats) {
		t.Errorf("the volume's dump holds %d statistics records, want %d", n, len(stats))
	}
	engineDumper, _ := meta.Capability[meta.Dumper](x.e)
	own := dumpRecords(t, engineDumper)
	if own.count(meta.DumpQuota)+own.count(meta.DumpDirStat) != 0 {
		t.Errorf("the engine's own Dump holds quota or statistics records")
	}

	target := open(t)
	into, _ := meta.VolumeDumper(target)
	if err := into.Restore(t.Context(), first.reader()); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	y := &env{t: t, e: target, ctx: t.Context(), orphans: map[meta.Ino]bool{}}
	gotStats, err := y.dirStatStore().AllDirStats(y.ctx)
	y.must(err, "AllDirStats after Restore")
	if !maps.Equal(gotStats, stats) {
		t.Errorf("statistics after Restore %v, want %v", gotStats, stats)
	}
	loaded, err := meta.GetQuota(y.ctx, target, q)
	y.must(err, "GetQuota after Restore")
	if loaded != used {
		t.Errorf("quota after Restore %+v, want %+v", loaded, used)
	}
	dumpRecords(t, into).sameAs(t, first.without(x.orphans))

	p := quotaOps{y, y.quotaClient()}
	p.create(q, "g", nil)
	p.create(q, "h", meta.ErrQuota)
	p.create(meta.RootIno, "outside", nil)
}
