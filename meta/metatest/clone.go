package metatest

import (
	"reflect"

	"cairn/meta"
)

// Copy-on-write copies (meta.Cloner), on the engines that offer them.
func cloneTests() []test {
	return []test{
		{"Clone/Independent", testCloneIndependent},
		{"Clone/SharedSlices", testCloneSharedSlices},
		{"Clone/Attributes", testCloneAttributes},
		{"Clone/Kinds", testCloneKinds},
		{"Clone/Refusals", testCloneRefusals},
	}
}

// cloner is the engine's meta.Cloner; the subtest is skipped on an engine
// without one.
func (x *env) cloner() meta.Cloner {
	x.t.Helper()
	c, ok := meta.Capability[meta.Cloner](x.e)
	if !ok {
		x.t.Skip("this engine has no meta.Cloner")
	}
	return c
}

func (x *env) clone(cred meta.Cred, src, parent meta.Ino, name string, preserve bool) (meta.Ino, meta.Attr) {
	x.t.Helper()
	ino := x.newIno()
	a, err := x.cloner().Clone(x.ctx, cred, src, parent, name, ino, preserve)
	x.must(err, "Clone %d as %q in %d (preserve %v)", src, name, parent, preserve)
	return ino, a
}

// A copy has the source's slice lists, usage grows by it, and a write to
// either side later leaves the other as it was.
func testCloneIndependent(x *env) {
	f := x.create(meta.RootIno, "f")
	x.write(f, 0, 0, 10000)
	x.write(f, 0, 4000, 100)
	x.write(f, 2, 0, 7000)
	before := x.usage()
	g, ga := x.clone(meta.RootCred, f, meta.RootIno, "g", false)
	if fa := x.attr(f); ga.Length != fa.Length || ga.Type != meta.TypeFile || ga.Nlink != 1 {
		x.t.Errorf("the copy's attributes %+v, want a file of the source's length %d with one link", ga, fa.Length)
	}
	if got := x.lookup(meta.RootIno, "g"); got != g {
		x.t.Errorf("Lookup g = %d, want the copy %d", got, g)
	}
	for _, idx := range []uint32{0, 1, 2} {
		if got, want := x.read(g, idx), x.read(f, idx); !reflect.DeepEqual(got, want) {
			x.t.Errorf("chunk %d of the copy %v, want the source's %v", idx, got, want)
		}
	}
	after := x.usage()
	if after.Inodes != before.Inodes+1 || after.Space != before.Space+spaceOfLength(ga.Length) {
		x.t.Errorf("usage after a clone %+v, want %+v plus one inode and %d bytes", after, before, spaceOfLength(ga.Length))
	}
	f0, g2 := x.read(f, 0), x.read(g, 2)
	x.write(g, 0, 0, 50)
	if got := x.read(f, 0); !reflect.DeepEqual(got, f0) {
		x.t.Errorf("a write to the copy changed the source's chunk 0: %v, was %v", got, f0)
	}
	x.write(f, 2, 100, 50)
	if got := x.read(g, 2); !reflect.DeepEqual(got, g2) {
		x.t.Errorf("a write to the source changed the copy's chunk 2: %v, was %v", got, g2)
	}
}

// spaceOfLength is what a file of length n counts for in Usage.Space.
func spaceOfLength(n uint64) uint64 { return (n + 4095) &^ 4095 }

// Every slice of a copy holds a reference: deleting the source frees
// none of them, and each reaches DeadSlices once its last user goes.
func testCloneSharedSlices(x *env) {
	f := x.create(meta.RootIno, "f")
	s1 := x.write(f, 0, 0, 8192)
	s2 := x.write(f, 1, 0, 4096)
	g, _ := x.clone(meta.RootCred, f, meta.RootIno, "g", false)
	h, _ := x.clone(meta.RootCred, g, meta.RootIno, "h", false)
	merged := meta.Slice{ID: x.newSliceID(), Size: 8192, Len: 8192}
	x.must(x.e.Compact(x.ctx, f, 0, []meta.Slice{s1}, merged), "Compact of the source")
	x.unlink(meta.RootIno, "f")
	x.release(f)
	x.unlink(meta.RootIno, "g")
	x.release(g)
	dead := x.deadIDs()
	for _, s := range []meta.Slice{s1, s2} {
		if _, ok := dead[s.ID]; ok {
			x.t.Errorf("slice %d is in DeadSlices while a copy still uses it", s.ID)
		}
	}
	if _, ok := dead[merged.ID]; !ok {
		x.t.Errorf("the source's own compacted slice %d is not in DeadSlices after the source went", merged.ID)
	}
	if got := x.read(h, 0); len(got) != 1 || got[0] != s1 {
		x.t.Errorf("the last copy's chunk 0 after the others went: %v, want [%v]", got, s1)
	}
	x.unlink(meta.RootIno, "h")
	x.release(h)
	dead = x.deadIDs()
	for _, s := range []meta.Slice{s1, s2} {
		if _, ok := dead[s.ID]; !ok {
			x.t.Errorf("slice %d is not in DeadSlices after its last user went", s.ID)
		}
	}
}

// Without preserve the caller owns the copy (mode kept less setuid and
// setgid, no xattrs, fresh times); with it owner, mode, times and xattrs
// are kept.
func testCloneAttributes(x *env) {
	d, _ := x.mknodAs(meta.RootCred, meta.RootIno, "d", meta.TypeDirectory, 0777)
	f, _ := x.mknodAs(alice, d, "f", meta.TypeFile, 06755)
	x.write(f, 0, 0, 100)
	x.must(x.e.SetXattr(x.ctx, alice, f, "user.k", []byte("v"), 0), "SetXattr")
	_, err := x.e.SetAttr(x.ctx, alice, f, meta.SetAttr{Mtime: i64(1e18), Atime: i64(2e18)})
	x.must(err, "SetAttr times")
	fa := x.attr(f)
	mark := x.mark()

	g, ga := x.clone(bob, f, d, "as-bob", false)
	if ga.Uid != bob.Uid || ga.Gid != bob.Gid || ga.Mode != 0755 || ga.Mtime < mark || ga.Atime < mark {
		x.t.Errorf("a copy by bob: %+v, want bob's, mode 0755, times of now", ga)
	}
	if got := x.xattrs(g); len(got) != 0 {
		x.t.Errorf("a copy without preserve has xattrs %q", got)
	}
	if got := x.attr(g); got != ga {
		x.t.Errorf("GetAttr of the copy %+v, Clone returned %+v", got, ga)
	}

	p, pa := x.clone(alice, f, d, "as-alice", true)
	if pa.Uid != fa.Uid || pa.Gid != fa.Gid || pa.Mode != fa.Mode || pa.Mtime != fa.Mtime || pa.Atime != fa.Atime || pa.Ctime < mark {
		x.t.Errorf("a preserved copy %+v, want the source's owner, mode and times %+v with a new ctime", pa, fa)
	}
	v, err := x.e.GetXattr(x.ctx, p, "user.k")
	if err != nil || string(v) != "v" {
		x.t.Errorf("xattr user.k of a preserved copy: %q, %v; want \"v\"", v, err)
	}
	_, err = x.cloner().Clone(x.ctx, bob, f, d, "bob-keeps-alice", x.newIno(), true)
	x.want(meta.ErrNotPermitted, err, "a preserved copy of alice's file by bob")
}

// A directory is copied empty and counts as a subdirectory of its new
// parent; a symbolic link keeps its target.
func testCloneKinds(x *env) {
	src := x.mkdir(meta.RootIno, "src")
	x.create(src, "inside")
	dst := x.mkdir(meta.RootIno, "dst")
	before := x.attr(dst).Nlink
	c, ca := x.clone(meta.RootCred, src, dst, "copy", false)
	if ca.Type != meta.TypeDirectory || ca.Nlink != 2 || ca.Parent != dst {
		x.t.Errorf("a copied directory %+v, want an empty directory under %d", ca, dst)
	}
	if got := x.names(c); len(got) != 0 {
		x.t.Errorf("a copied directory lists %q, want nothing (trees are copied inode by inode)", got)
	}
	if got := x.attr(dst).Nlink; got != before+1 {
		x.t.Errorf("the parent's link count %d after a directory was cloned into it, want %d", got, before+1)
	}
	l := x.symlink(meta.RootIno, "l", "some/target")
	m, _ := x.clone(meta.RootCred, l, meta.RootIno, "m", false)
	target, err := x.e.Readlink(x.ctx, m)
	if err != nil || string(target) != "some/target" {
		x.t.Errorf("Readlink of a copied symlink: %q, %v; want some/target", target, err)
	}
}

func testCloneRefusals(x *env) {
	f := x.create(meta.RootIno, "f")
	x.create(meta.RootIno, "taken")
	c := x.cloner()
	_, err := c.Clone(x.ctx, meta.RootCred, f, meta.RootIno, "taken", x.newIno(), false)
	x.want(meta.ErrExists, err, "Clone onto an existing name")
	_, err = c.Clone(x.ctx, meta.RootCred, x.newIno(), meta.RootIno, "new", x.newIno(), false)
	x.want(meta.ErrNotFound, err, "Clone of an inode that does not exist")
	_, err = c.Clone(x.ctx, meta.RootCred, f, f, "new", x.newIno(), false)
	x.want(meta.ErrNotDir, err, "Clone into a file")
	private, _ := x.mknodAs(alice, meta.RootIno, "private", meta.TypeFile, 0600)
	_, err = c.Clone(x.ctx, bob, private, meta.RootIno, "stolen", x.newIno(), false)
	x.want(meta.ErrAccess, err, "Clone by bob of alice's unreadable file")
	x.gone(meta.RootIno, "new")
	x.gone(meta.RootIno, "stolen")
}
