package metatest

import (
	"cairn/meta"
)

func usageTests() []test {
	return []test{
		{"Usage/Mixed", testUsageMixed},
	}
}

// testUsageMixed runs a mix of operations and checks after each that Usage
// is exactly what the tree holds.
func testUsageMixed(x *env) {
	check := func(step string) {
		x.t.Helper()
		var orphans []meta.Ino
		for ino := range x.orphans {
			orphans = append(orphans, ino)
		}
		if err := Verify(x.ctx, x.e, orphans...); err != nil {
			x.t.Fatalf("after %s: %v", step, err)
		}
	}
	start := x.usage()
	if start != (meta.Usage{Inodes: 1}) {
		x.t.Errorf("Usage of a fresh volume = %+v, want {Space:0 Inodes:1}", start)
	}
	d := x.mkdir(meta.RootIno, "d")
	check("mkdir")
	f := x.create(d, "f")
	check("create")
	x.write(f, 0, 0, 1)
	check("a 1-byte write")
	if u := x.usage(); u.Space != 4096 || u.Inodes != 3 {
		x.t.Errorf("Usage with one 1-byte file and one directory = %+v, want {4096 3}", u)
	}
	x.write(f, 3, 100, 5000)
	check("a write in chunk 3")
	_, err := x.e.Truncate(x.ctx, meta.RootCred, f, 12345)
	x.must(err, "Truncate")
	check("truncate down")
	_, err = x.e.Fallocate(x.ctx, meta.RootCred, f, 0, 20000, 100)
	x.must(err, "Fallocate")
	check("fallocate")
	_, err = x.e.Link(x.ctx, meta.RootCred, f, meta.RootIno, "hard")
	x.must(err, "Link")
	check("link (no new inode, no new space)")
	x.symlink(d, "l", "a-target-of-some-length")
	check("symlink")
	x.write(x.create(d, "g"), 0, 0, 70000)
	check("second file")
	x.rename(d, "g", d, "f", 0)
	check("rename over a file that keeps a link")
	h := x.create(d, "h")
	x.write(h, 0, 0, 1<<20)
	x.rename(d, "h", meta.RootIno, "hard", 0)
	check("rename over a file's last link (orphan)")
	for ino := range x.orphans {
		x.release(ino)
	}
	check("release")
	x.unlink(meta.RootIno, "hard")
	check("unlink of the last link")
	x.release(h)
	check("release")
	x.mknodAs(meta.RootCred, d, "fifo", meta.TypeFIFO, 0644)
	check("fifo")
	for _, name := range []string{"f", "l", "fifo"} {
		ino, _ := x.unlink(d, name)
		x.release(ino)
	}
	x.must(x.e.Rmdir(x.ctx, meta.RootCred, meta.RootIno, "d"), "Rmdir")
	check("removing everything")
	if u := x.usage(); u != (meta.Usage{Inodes: 1}) {
		x.t.Errorf("Usage of an emptied volume = %+v, want {Space:0 Inodes:1}", u)
	}
}
