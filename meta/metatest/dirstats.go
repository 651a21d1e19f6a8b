package metatest

import (
	"time"

	"cairn/meta"
)

// Directory statistics (meta.DirStatStore), on the engines that keep them.
func dirStatsTests() []test {
	return []test{
		{"DirStats/Store", testDirStatsStore},
		{"DirStats/Exact", testDirStatsExact},
		{"DirStats/Close", testDirStatsClose},
		{"DirStats/Repair", testDirStatsRepair},
		{"DirStats/FlushMarks", testFlushMarks},
	}
}

// dirStatStore is the engine's meta.DirStatStore; the subtest is skipped
// on an engine without one.
func (x *env) dirStatStore() meta.DirStatStore {
	x.t.Helper()
	s, ok := meta.Capability[meta.DirStatStore](x.e)
	if !ok {
		x.t.Skip("this engine has no meta.DirStatStore")
	}
	return s
}

// statsClient is a started client of the env's engine.
func (x *env) statsClient() *meta.Client {
	x.t.Helper()
	c := meta.NewClient(x.e, meta.ClientConfig{Heartbeat: time.Hour})
	x.must(c.Start(x.ctx), "Start a client")
	x.t.Cleanup(func() { c.Close(x.ctx) })
	if !c.DirStatsOn() {
		x.t.Fatal("the client keeps no statistics on an engine with a DirStatStore")
	}
	return c
}

// AddDirStats sums, SetDirStats replaces, removed directories are
// forgotten, and a directory never counted is absent.
func testDirStatsStore(x *env) {
	s := x.dirStatStore()
	x.must(s.AddDirStats(x.ctx, map[meta.Ino]meta.DirStat{10: {Space: 4096, Inodes: 1}, 11: {Inodes: 2}}, nil, meta.FlushMark{}), "AddDirStats")
	x.must(s.AddDirStats(x.ctx, map[meta.Ino]meta.DirStat{10: {Space: 8192, Inodes: 2}, 12: {Space: -4096, Inodes: -1}}, nil, meta.FlushMark{}), "AddDirStats")
	want := map[meta.Ino]meta.DirStat{10: {Space: 12288, Inodes: 3}, 11: {Inodes: 2}, 12: {Space: -4096, Inodes: -1}}
	got, err := s.DirStats(x.ctx, []meta.Ino{10, 11, 12, 13})
	x.must(err, "DirStats")
	x.sameStats("after two AddDirStats", got, want)
	x.must(s.SetDirStats(x.ctx, map[meta.Ino]meta.DirStat{12: {Space: 4096, Inodes: 1}}, []meta.Ino{11}), "SetDirStats")
	x.must(s.AddDirStats(x.ctx, nil, []meta.Ino{10, 99}, meta.FlushMark{}), "AddDirStats removing 10")
	all, err := s.AllDirStats(x.ctx)
	x.must(err, "AllDirStats")
	x.sameStats("after SetDirStats and removals", all, map[meta.Ino]meta.DirStat{12: {Space: 4096, Inodes: 1}})
}

func (x *env) sameStats(when string, got, want map[meta.Ino]meta.DirStat) {
	x.t.Helper()
	for dir, w := range want {
		if got[dir] != w {
			x.t.Errorf("%s: statistics of directory %d %+v, want %+v", when, dir, got[dir], w)
		}
	}
	for dir, g := range got {
		if _, ok := want[dir]; !ok && g != (meta.DirStat{}) {
			x.t.Errorf("%s: directory %d has statistics %+v, want none", when, dir, g)
		}
	}
}

// checkStats compares every directory's statistics with a full count.
func (x *env) checkStats(when string) {
	x.t.Helper()
	count, err := meta.CountTree(x.ctx, x.e, meta.RootIno)
	x.must(err, "CountTree")
	all, err := x.dirStatStore().AllDirStats(x.ctx)
	x.must(err, "AllDirStats")
	x.sameStats(when, all, count.Stats)
}

// A mix of creates, writes, truncates, renames across directories (of
// files and of a tree, replacing and exchanging), hard links, unlinks and
// rmdirs leaves every directory's statistics equal to a full count once
// the client has flushed.
func testDirStatsExact(x *env) {
	c := x.statsClient()
	root := meta.RootCred
	mk := func(parent meta.Ino, name string, typ meta.FileType) meta.Ino {
		x.t.Helper()
		ino, _, err := c.Mknod(x.ctx, root, parent, name, typ, 0o755, 0, "")
		x.must(err, "Mknod %q in %d", name, parent)
		return ino
	}
	write := func(ino meta.Ino, idx uint32, pos, n uint32) {
		x.t.Helper()
		id, err := c.NewSliceID(x.ctx)
		x.must(err, "NewSliceID")
		_, _, err = c.Write(x.ctx, ino, idx, meta.Slice{Pos: pos, ID: id, Size: n, Len: n}, time.Now().UnixNano())
		x.must(err, "Write to %d", ino)
	}
	truncate := func(ino meta.Ino, length uint64) {
		x.t.Helper()
		_, err := c.Truncate(x.ctx, root, ino, length)
		x.must(err, "Truncate %d to %d", ino, length)
	}
	rename := func(sp meta.Ino, sn string, dp meta.Ino, dn string, flags uint32) {
		x.t.Helper()
		_, _, _, err := c.Rename(x.ctx, root, sp, sn, dp, dn, flags)
		x.must(err, "Rename %d/%q to %d/%q", sp, sn, dp, dn)
	}
	a := mk(meta.RootIno, "a", meta.TypeDirectory)
	b := mk(meta.RootIno, "b", meta.TypeDirectory)
	f1 := mk(a, "f1", meta.TypeFile)
	write(f1, 0, 0, 10000)
	write(f1, 0, 100, 50) // inside: no growth
	f2 := mk(a, "f2", meta.TypeFile)
	write(f2, 1, 0, 3000)
	f3 := mk(b, "f3", meta.TypeFile)
	truncate(f3, 123456)
	_, _, err := c.Mknod(x.ctx, root, b, "sym", meta.TypeSymlink, 0o777, 0, "f3")
	x.must(err, "Symlink b/sym")
	_, err = c.Link(x.ctx, root, f1, b, "l1")
	x.must(err, "Link f1 as b/l1")
	rename(a, "f2", b, "f2", 0)
	write(f2, 0, 0, 5000) // f2 now grows in b
	truncate(f2, 5000)
	sub := mk(a, "sub", meta.TypeDirectory)
	deep := mk(sub, "deep", meta.TypeFile)
	write(deep, 0, 0, 70000)
	rename(a, "sub", b, "sub", 0)
	rename(b, "f3", a, "f1", 0) // replaces a/f1, which keeps its link b/l1
	truncate(f3, 9000)
	rename(a, "f1", b, "f2", meta.RenameExchange)
	empty := mk(a, "empty", meta.TypeDirectory)
	x.must(c.Rmdir(x.ctx, root, a, "empty"), "Rmdir a/empty")
	_, _, err = c.Unlink(x.ctx, root, b, "l1")
	x.must(err, "Unlink b/l1")
	f4 := mk(b, "f4", meta.TypeFile)
	write(f4, 0, 0, 1)
	rename(b, "f4", b, "f2", 0) // replaces within one directory
	x.must(c.FlushDirStats(x.ctx), "FlushDirStats")
	x.checkStats("after the mix")
	all, err := x.dirStatStore().AllDirStats(x.ctx)
	x.must(err, "AllDirStats")
	if _, ok := all[empty]; ok {
		x.t.Errorf("the removed directory %d still has statistics", empty)
	}
	if got := all[b]; got.Inodes != 3 {
		x.t.Errorf("directory b counts %d inodes, want 3 (sym, sub, and f4 renamed over f2)", got.Inodes)
	}
}

// Close writes what the client has not flushed yet.
func testDirStatsClose(x *env) {
	x.dirStatStore()
	c := meta.NewClient(x.e, meta.ClientConfig{Heartbeat: time.Hour})
	x.must(c.Start(x.ctx), "Start a client")
	d, _, err := c.Mknod(x.ctx, meta.RootCred, meta.RootIno, "d", meta.TypeDirectory, 0o755, 0, "")
	x.must(err, "Mknod d")
	_, _, err = c.Mknod(x.ctx, meta.RootCred, d, "f", meta.TypeFile, 0o644, 0, "")
	x.must(err, "Mknod d/f")
	x.must(c.Close(x.ctx), "Close")
	x.checkStats("after Close")
}

// RepairDirStats (fsck --repair) writes the counted statistics of the
// directories that are wrong or missing and forgets those of removed
// directories.
func testDirStatsRepair(x *env) {
	s := x.dirStatStore()
	d := x.mkdir(meta.RootIno, "d")
	f := x.create(d, "f")
	x.write(f, 0, 0, 5000)
	x.create(d, "g")
	x.must(s.SetDirStats(x.ctx, map[meta.Ino]meta.DirStat{meta.RootIno: {Inodes: 7}, 987654: {Inodes: 1}}, nil), "SetDirStats")
	done, err := meta.RepairDirStats(x.ctx, x.e, meta.RootIno)
	x.must(err, "RepairDirStats")
	if done.Directories != 2 || done.Forgotten != 1 {
		x.t.Errorf("RepairDirStats %+v, want 2 directories repaired (the root, d) and 1 forgotten", done)
	}
	x.checkStats("after RepairDirStats")
	if got := x.allStats()[d]; got != (meta.DirStat{Space: 8192, Inodes: 2}) {
		x.t.Errorf("d's statistics after the repair %+v, want 8 KiB and 2 inodes", got)
	}
}

func (x *env) allStats() map[meta.Ino]meta.DirStat {
	x.t.Helper()
	all, err := x.dirStatStore().AllDirStats(x.ctx)
	x.must(err, "AllDirStats")
	return all
}
