package metatest

import (
	"cairn/meta"
)

func orphanTests() []test {
	return []test{
		{"Orphan/StaysReadable", testOrphanReadable},
		{"Orphan/Release", testOrphanRelease},
		{"Orphan/ReleaseNotOrphan", testOrphanReleaseLinked},
		{"Orphan/DeadSlicesLimit", testDeadSlicesLimit},
	}
}

func testOrphanReadable(x *env) {
	f := x.create(meta.RootIno, "f")
	s := x.write(f, 0, 0, 6000)
	x.must(x.e.SetXattr(x.ctx, meta.RootCred, f, "user.k", []byte("v"), 0), "SetXattr")
	base := x.usage()
	ino, a := x.unlink(meta.RootIno, "f")
	if ino != f || a.Nlink != 0 || a.Length != 6000 {
		x.t.Errorf("Unlink of the last link returned %d %+v, want inode %d, nlink 0, length 6000", ino, a, f)
	}
	x.gone(meta.RootIno, "f")
	got, err := x.e.GetAttr(x.ctx, f)
	if x.want(nil, err, "GetAttr of an orphan") && (got.Nlink != 0 || got.Length != 6000) {
		x.t.Errorf("orphan attributes %+v, want nlink 0 and length 6000", got)
	}
	if list := x.read(f, 0); len(list) != 1 || list[0] != s {
		x.t.Errorf("Read of an orphan = %+v, want [%+v]", list, s)
	}
	if v, err := x.e.GetXattr(x.ctx, f, "user.k"); err != nil || string(v) != "v" {
		x.t.Errorf("GetXattr of an orphan = %q, %v", v, err)
	}
	// An open unlinked file can still be written.
	s2 := x.write(f, 0, 6000, 4000)
	if list := x.read(f, 0); len(list) != 2 || list[1] != s2 {
		x.t.Errorf("Read of an orphan after Write = %+v", list)
	}
	if u := x.usage(); u.Inodes != base.Inodes || u.Space != base.Space+4096 {
		x.t.Errorf("Usage with an orphan grown to 10000 bytes = %+v, want {%d %d}", u, base.Space+4096, base.Inodes)
	}
	if names := x.names(meta.RootIno); len(names) != 0 {
		x.t.Errorf("Readdir lists %q after the only file was unlinked", names)
	}
}

func testOrphanRelease(x *env) {
	f := x.create(meta.RootIno, "f")
	s1 := x.write(f, 0, 0, 4096)
	s2 := x.write(f, 1, 0, 100)
	keep := x.create(meta.RootIno, "keep")
	s3 := x.write(keep, 0, 0, 10)
	if dead := x.deadIDs(); len(dead) != 0 {
		x.t.Errorf("DeadSlices of a volume where nothing was deleted: %v", dead)
	}
	base := x.usage()
	x.unlink(meta.RootIno, "f")
	if u := x.usage(); u != base {
		x.t.Errorf("Usage changed on Unlink before ReleaseOrphan: %+v, was %+v", u, base)
	}
	if dead := x.deadIDs(); len(dead) != 0 {
		x.t.Errorf("an orphan's slices are in DeadSlices before ReleaseOrphan: %v", dead)
	}
	x.release(f)
	_, err := x.e.GetAttr(x.ctx, f)
	x.want(meta.ErrNotFound, err, "GetAttr after ReleaseOrphan")
	want := meta.Usage{Space: base.Space - (meta.ChunkSize + 4096), Inodes: base.Inodes - 1}
	if u := x.usage(); u != want {
		x.t.Errorf("Usage after ReleaseOrphan = %+v, want %+v", u, want)
	}
	dead := x.deadIDs()
	if dead[s1.ID] != s1.Size || dead[s2.ID] != s2.Size || len(dead) != 2 {
		x.t.Errorf("DeadSlices after ReleaseOrphan = %v, want {%d:%d %d:%d}", dead, s1.ID, s1.Size, s2.ID, s2.Size)
	}
	if _, ok := dead[s3.ID]; ok {
		x.t.Errorf("a linked file's slice %d is in DeadSlices", s3.ID)
	}
	x.must(x.e.ForgetSlices(x.ctx, []uint64{s1.ID}), "ForgetSlices")
	dead = x.deadIDs()
	if _, ok := dead[s1.ID]; ok || len(dead) != 1 {
		x.t.Errorf("DeadSlices after ForgetSlices(%d) = %v, want only %d", s1.ID, dead, s2.ID)
	}
	x.must(x.e.ForgetSlices(x.ctx, []uint64{s2.ID, 999999}), "ForgetSlices with an unknown id")
	if dead := x.deadIDs(); len(dead) != 0 {
		x.t.Errorf("DeadSlices after forgetting everything = %v", dead)
	}
	// Releasing twice is a no-op.
	x.must(x.e.ReleaseOrphan(x.ctx, x.sid, f), "second ReleaseOrphan")
	if u := x.usage(); u != want {
		x.t.Errorf("second ReleaseOrphan changed Usage to %+v", u)
	}
}

func testOrphanReleaseLinked(x *env) {
	f := x.create(meta.RootIno, "f")
	x.write(f, 0, 0, 100)
	x.must(x.e.ReleaseOrphan(x.ctx, x.sid, f), "ReleaseOrphan of a linked file")
	if a, err := x.e.GetAttr(x.ctx, f); err != nil || a.Nlink != 1 {
		x.t.Errorf("ReleaseOrphan of a linked file deleted or changed it: %+v, %v", a, err)
	}
	if len(x.read(f, 0)) != 1 {
		x.t.Errorf("ReleaseOrphan of a linked file dropped its data")
	}
	if dead := x.deadIDs(); len(dead) != 0 {
		x.t.Errorf("ReleaseOrphan of a linked file queued slices: %v", dead)
	}
	// A file unlinked by one session is not another session's orphan.
	other := x.session("other")
	_, _, err := x.e.Unlink(x.ctx, meta.RootCred, meta.RootIno, "f", other)
	x.must(err, "Unlink")
	x.must(x.e.ReleaseOrphan(x.ctx, x.sid, f), "ReleaseOrphan by a session that does not hold it")
	if _, err := x.e.GetAttr(x.ctx, f); err != nil {
		x.t.Errorf("ReleaseOrphan by the wrong session deleted the orphan: %v", err)
	}
	x.must(x.e.ReleaseOrphan(x.ctx, other, f), "ReleaseOrphan")
	_, err = x.e.GetAttr(x.ctx, f)
	x.want(meta.ErrNotFound, err, "GetAttr after ReleaseOrphan by its session")
}

func testDeadSlicesLimit(x *env) {
	f := x.create(meta.RootIno, "f")
	for i := uint32(0); i < 5; i++ {
		x.write(f, i, 0, 10)
	}
	x.unlink(meta.RootIno, "f")
	x.release(f)
	dead, err := x.e.DeadSlices(x.ctx, 2)
	x.must(err, "DeadSlices")
	if len(dead) != 2 {
		x.t.Errorf("DeadSlices(2) returned %d slices", len(dead))
	}
	if all := x.deadIDs(); len(all) != 5 {
		x.t.Errorf("DeadSlices lists %d slices, want 5", len(all))
	}
}
