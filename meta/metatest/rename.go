package metatest

import (
	"cairn/meta"
)

func renameTests() []test {
	return []test{
		{"Rename/File", testRenameFile},
		{"Rename/OverFile", testRenameOverFile},
		{"Rename/OverLinkedFile", testRenameOverLinkedFile},
		{"Rename/OverEmptyDir", testRenameOverEmptyDir},
		{"Rename/ENOTEMPTY", testRenameOverNonEmptyDir},
		{"Rename/ENOTDIR", testRenameDirOverFile},
		{"Rename/EISDIR", testRenameFileOverDir},
		{"Rename/DirBetweenParents", testRenameDirBetweenParents},
		{"Rename/NoReplace", testRenameNoReplace},
		{"Rename/Exchange", testRenameExchange},
		{"Rename/ExchangeDirs", testRenameExchangeDirs},
		{"Rename/ExchangeENOENT", testRenameExchangeMissing},
		{"Rename/BadFlags", testRenameBadFlags},
		{"Rename/EmptyDir", testRenameEmptyDir},
		{"Rename/Itself", testRenameItself},
		{"Rename/SameInode", testRenameSameInode},
		{"Rename/IntoDescendant", testRenameIntoDescendant},
		{"Rename/ENOENT", testRenameMissing},
		{"Rename/ENOTDIRParent", testRenameParentNotDir},
	}
}

func testRenameFile(x *env) {
	d := x.mkdir(meta.RootIno, "d")
	f := x.create(d, "f")
	moved, a, replaced, err := x.e.Rename(x.ctx, meta.RootCred, d, "f", d, "g", 0, x.sid)
	x.must(err, "Rename")
	if moved != f || replaced != 0 {
		x.t.Errorf("Rename returned moved %d replaced %d, want %d and 0", moved, replaced, f)
	}
	if g := x.attr(f); g != a {
		x.t.Errorf("Rename returned %+v, GetAttr says %+v", a, g)
	}
	x.gone(d, "f")
	if x.lookup(d, "g") != f {
		x.t.Errorf("the new name does not name the renamed inode")
	}
	if n := x.attr(d).Nlink; n != 2 {
		x.t.Errorf("directory nlink %d after renaming a file in it, want 2", n)
	}
	if n := x.attr(f).Nlink; n != 1 {
		x.t.Errorf("renamed file nlink %d, want 1", n)
	}
}

func testRenameOverFile(x *env) {
	d := x.mkdir(meta.RootIno, "d")
	src := x.create(d, "src")
	victim := x.create(d, "dst")
	x.write(victim, 0, 0, 50000)
	victimSlice := x.read(victim, 0)[0]
	x.write(src, 0, 0, 10)
	base := x.usage()
	moved, replaced := x.rename(d, "src", d, "dst", 0)
	if moved != src || replaced != victim {
		x.t.Fatalf("Rename over a file returned moved %d replaced %d, want %d and %d", moved, replaced, src, victim)
	}
	x.gone(d, "src")
	if x.lookup(d, "dst") != src {
		x.t.Errorf("dst does not name the moved file")
	}
	a, err := x.e.GetAttr(x.ctx, victim)
	if x.want(nil, err, "GetAttr of a replaced file before ReleaseOrphan") && a.Nlink != 0 {
		x.t.Errorf("replaced file has nlink %d, want 0", a.Nlink)
	}
	if u := x.usage(); u != base {
		x.t.Errorf("Usage changed when a file was replaced but not released: %+v, was %+v", u, base)
	}
	x.verify()
	x.release(victim)
	_, err = x.e.GetAttr(x.ctx, victim)
	x.want(meta.ErrNotFound, err, "GetAttr of a replaced file after ReleaseOrphan")
	want := meta.Usage{Space: base.Space - 53248, Inodes: base.Inodes - 1}
	if u := x.usage(); u != want {
		x.t.Errorf("Usage after releasing the replaced file = %+v, want %+v", u, want)
	}
	if _, ok := x.deadIDs()[victimSlice.ID]; !ok {
		x.t.Errorf("the replaced file's slice %d is not in DeadSlices after ReleaseOrphan", victimSlice.ID)
	}
}

func testRenameOverLinkedFile(x *env) {
	d := x.mkdir(meta.RootIno, "d")
	x.create(d, "src")
	victim := x.create(d, "dst")
	_, err := x.e.Link(x.ctx, meta.RootCred, victim, meta.RootIno, "other")
	x.must(err, "Link")
	_, replaced := x.rename(d, "src", d, "dst", 0)
	if replaced != 0 {
		x.t.Errorf("Rename over a file with another link returned replaced %d, want 0", replaced)
		delete(x.orphans, replaced)
	}
	if a := x.attr(victim); a.Nlink != 1 {
		x.t.Errorf("replaced file keeping a link has nlink %d, want 1", a.Nlink)
	}
}

func testRenameOverEmptyDir(x *env) {
	a := x.mkdir(meta.RootIno, "a")
	b := x.mkdir(meta.RootIno, "b")
	x.mkdir(a, "x")
	victim := x.mkdir(b, "y")
	moved, replaced := x.rename(a, "x", b, "y", 0)
	if replaced != 0 {
		x.t.Errorf("Rename over an empty directory returned replaced %d, want 0 (directories are not orphans)", replaced)
		delete(x.orphans, replaced)
	}
	if x.lookup(b, "y") != moved {
		x.t.Errorf("destination does not name the moved directory")
	}
	_, err := x.e.GetAttr(x.ctx, victim)
	x.want(meta.ErrNotFound, err, "GetAttr of a directory replaced by Rename")
	if n := x.attr(a).Nlink; n != 2 {
		x.t.Errorf("source parent nlink %d, want 2", n)
	}
	if n := x.attr(b).Nlink; n != 3 {
		x.t.Errorf("destination parent nlink %d, want 3", n)
	}
	// Within one parent the count drops by the replaced directory.
	x.mkdir(a, "p")
	x.mkdir(a, "q")
	x.rename(a, "p", a, "q", 0)
	if n := x.attr(a).Nlink; n != 3 {
		x.t.Errorf("parent nlink %d after renaming a directory over a sibling, want 3", n)
	}
}

func testRenameOverNonEmptyDir(x *env) {
	x.mkdir(meta.RootIno, "a")
	b := x.mkdir(meta.RootIno, "b")
	x.create(b, "f")
	_, _, _, err := x.e.Rename(x.ctx, meta.RootCred, meta.RootIno, "a", meta.RootIno, "b", 0, x.sid)
	x.want(meta.ErrNotEmpty, err, "Rename over a non-empty directory")
	x.lookup(meta.RootIno, "a")
	x.lookup(b, "f")
}

func testRenameDirOverFile(x *env) {
	x.mkdir(meta.RootIno, "d")
	x.create(meta.RootIno, "f")
	_, _, _, err := x.e.Rename(x.ctx, meta.RootCred, meta.RootIno, "d", meta.RootIno, "f", 0, x.sid)
	x.want(meta.ErrNotDir, err, "Rename of a directory over a file")
}

// Linux checks the types before emptiness: a file over a non-empty
// directory is EISDIR, a directory over a file ENOTDIR.
func testRenameFileOverDir(x *env) {
	d := x.mkdir(meta.RootIno, "d")
	x.create(meta.RootIno, "f")
	_, _, _, err := x.e.Rename(x.ctx, meta.RootCred, meta.RootIno, "f", meta.RootIno, "d", 0, x.sid)
	x.want(meta.ErrIsDir, err, "Rename of a file over an empty directory")
	x.create(d, "inner")
	_, _, _, err = x.e.Rename(x.ctx, meta.RootCred, meta.RootIno, "f", meta.RootIno, "d", 0, x.sid)
	x.want(meta.ErrIsDir, err, "Rename of a file over a non-empty directory")
	other := x.mkdir(meta.RootIno, "other")
	x.create(other, "g")
	_, _, _, err = x.e.Rename(x.ctx, meta.RootCred, other, "g", meta.RootIno, "d", 0, x.sid)
	x.want(meta.ErrIsDir, err, "Rename of a file over a non-empty directory in another parent")
}

func testRenameDirBetweenParents(x *env) {
	a := x.mkdir(meta.RootIno, "a")
	b := x.mkdir(meta.RootIno, "b")
	sub := x.mkdir(a, "sub")
	x.create(sub, "inner")
	moved, attr, _, err := x.e.Rename(x.ctx, meta.RootCred, a, "sub", b, "moved", 0, x.sid)
	x.must(err, "Rename")
	if moved != sub || attr.Parent != b {
		x.t.Errorf("Rename of a directory returned %d with Parent %d, want %d with Parent %d", moved, attr.Parent, sub, b)
	}
	if got := x.attr(sub); got.Parent != b || got.Nlink != 2 {
		x.t.Errorf("moved directory has Parent %d nlink %d, want %d and 2", got.Parent, got.Nlink, b)
	}
	if n := x.attr(a).Nlink; n != 2 {
		x.t.Errorf("old parent nlink %d, want 2", n)
	}
	if n := x.attr(b).Nlink; n != 3 {
		x.t.Errorf("new parent nlink %d, want 3", n)
	}
	x.lookup(sub, "inner")
	// Moving a file between parents changes no directory's nlink.
	f := x.create(a, "f")
	x.rename(a, "f", b, "f", 0)
	if x.attr(a).Nlink != 2 || x.attr(b).Nlink != 3 || x.attr(f).Parent != 0 {
		x.t.Errorf("moving a file changed a directory's nlink or gave the file a Parent")
	}
}

func testRenameNoReplace(x *env) {
	f := x.create(meta.RootIno, "f")
	g := x.create(meta.RootIno, "g")
	x.mkdir(meta.RootIno, "d")
	_, _, _, err := x.e.Rename(x.ctx, meta.RootCred, meta.RootIno, "f", meta.RootIno, "g", meta.RenameNoReplace, x.sid)
	x.want(meta.ErrExists, err, "RenameNoReplace over a file")
	_, _, _, err = x.e.Rename(x.ctx, meta.RootCred, meta.RootIno, "f", meta.RootIno, "d", meta.RenameNoReplace, x.sid)
	x.want(meta.ErrExists, err, "RenameNoReplace over a directory")
	if x.lookup(meta.RootIno, "f") != f || x.lookup(meta.RootIno, "g") != g {
		x.t.Errorf("a refused RenameNoReplace changed the entries")
	}
	x.rename(meta.RootIno, "f", meta.RootIno, "h", meta.RenameNoReplace)
	if x.lookup(meta.RootIno, "h") != f {
		x.t.Errorf("RenameNoReplace to a free name did not move the file")
	}
	x.gone(meta.RootIno, "f")
}

func testRenameExchange(x *env) {
	a := x.mkdir(meta.RootIno, "a")
	b := x.mkdir(meta.RootIno, "b")
	f := x.create(a, "f")
	g := x.create(b, "g")
	moved, replaced := x.rename(a, "f", b, "g", meta.RenameExchange)
	if moved != f {
		x.t.Errorf("RenameExchange returned moved %d, want %d", moved, f)
	}
	if replaced != 0 {
		x.t.Errorf("RenameExchange returned replaced %d, want 0 (nothing loses a link)", replaced)
		delete(x.orphans, replaced)
	}
	if x.lookup(a, "f") != g || x.lookup(b, "g") != f {
		x.t.Errorf("RenameExchange did not swap the two entries")
	}
	if x.attr(f).Nlink != 1 || x.attr(g).Nlink != 1 {
		x.t.Errorf("RenameExchange changed a file's nlink")
	}
	// A file and a directory swap too.
	d := x.mkdir(a, "dir")
	x.rename(a, "dir", b, "g", meta.RenameExchange)
	if x.lookup(b, "g") != d || x.lookup(a, "dir") != f {
		x.t.Errorf("RenameExchange of a directory and a file did not swap them")
	}
	if da := x.attr(d); da.Parent != b {
		x.t.Errorf("exchanged directory has Parent %d, want %d", da.Parent, b)
	}
	if x.attr(a).Nlink != 2 || x.attr(b).Nlink != 3 {
		x.t.Errorf("after exchanging a directory into b: nlink a=%d b=%d, want 2 and 3", x.attr(a).Nlink, x.attr(b).Nlink)
	}
}

func testRenameExchangeDirs(x *env) {
	a := x.mkdir(meta.RootIno, "a")
	b := x.mkdir(meta.RootIno, "b")
	da := x.mkdir(a, "da")
	db := x.mkdir(b, "db")
	x.mkdir(da, "child")
	x.rename(a, "da", b, "db", meta.RenameExchange)
	if x.lookup(a, "da") != db || x.lookup(b, "db") != da {
		x.t.Errorf("RenameExchange of two directories did not swap them")
	}
	if x.attr(da).Parent != b || x.attr(db).Parent != a {
		x.t.Errorf("exchanged directories have Parents %d and %d, want %d and %d", x.attr(da).Parent, x.attr(db).Parent, b, a)
	}
	if x.attr(a).Nlink != 3 || x.attr(b).Nlink != 3 || x.attr(da).Nlink != 3 || x.attr(db).Nlink != 2 {
		x.t.Errorf("nlink after exchanging directories: a=%d b=%d da=%d db=%d, want 3 3 3 2",
			x.attr(a).Nlink, x.attr(b).Nlink, x.attr(da).Nlink, x.attr(db).Nlink)
	}
	// Exchanging a directory with its own ancestor's entry is a loop.
	_, _, _, err := x.e.Rename(x.ctx, meta.RootCred, meta.RootIno, "b", da, "child", meta.RenameExchange, x.sid)
	x.want(meta.ErrInvalid, err, "RenameExchange of a directory with an entry inside itself")
}

func testRenameExchangeMissing(x *env) {
	x.create(meta.RootIno, "f")
	_, _, _, err := x.e.Rename(x.ctx, meta.RootCred, meta.RootIno, "f", meta.RootIno, "nope", meta.RenameExchange, x.sid)
	x.want(meta.ErrNotFound, err, "RenameExchange with a missing destination")
	_, _, _, err = x.e.Rename(x.ctx, meta.RootCred, meta.RootIno, "nope", meta.RootIno, "f", meta.RenameExchange, x.sid)
	x.want(meta.ErrNotFound, err, "RenameExchange with a missing source")
	x.lookup(meta.RootIno, "f")
}

func testRenameBadFlags(x *env) {
	x.create(meta.RootIno, "f")
	x.create(meta.RootIno, "g")
	_, _, _, err := x.e.Rename(x.ctx, meta.RootCred, meta.RootIno, "f", meta.RootIno, "g", meta.RenameNoReplace|meta.RenameExchange, x.sid)
	x.want(meta.ErrInvalid, err, "Rename with both RenameNoReplace and RenameExchange")
}

func testRenameItself(x *env) {
	d := x.mkdir(meta.RootIno, "d")
	f := x.create(d, "f")
	sub := x.mkdir(d, "sub")
	before := x.usage()
	for _, name := range []string{"f", "sub"} {
		for _, flags := range []uint32{0, meta.RenameExchange} {
			moved, _, replaced, err := x.e.Rename(x.ctx, meta.RootCred, d, name, d, name, flags, x.sid)
			if x.want(nil, err, "Rename of %q onto itself, flags %d", name, flags) && replaced != 0 {
				x.t.Errorf("Rename onto itself returned replaced %d (moved %d)", replaced, moved)
				delete(x.orphans, replaced)
			}
		}
	}
	if x.lookup(d, "f") != f || x.lookup(d, "sub") != sub {
		x.t.Errorf("Rename onto itself changed the entries")
	}
	if x.attr(f).Nlink != 1 || x.attr(sub).Nlink != 2 || x.attr(d).Nlink != 3 {
		x.t.Errorf("Rename onto itself changed an nlink")
	}
	if u := x.usage(); u != before {
		x.t.Errorf("Rename onto itself changed Usage: %+v, was %+v", u, before)
	}
}

// rename(2): when old and new are links to the same inode, it does nothing.
func testRenameSameInode(x *env) {
	f := x.create(meta.RootIno, "f")
	_, err := x.e.Link(x.ctx, meta.RootCred, f, meta.RootIno, "g")
	x.must(err, "Link")
	_, _, replaced, err := x.e.Rename(x.ctx, meta.RootCred, meta.RootIno, "f", meta.RootIno, "g", 0, x.sid)
	if x.want(nil, err, "Rename between two links of one inode") && replaced != 0 {
		x.t.Errorf("Rename between two links of one inode returned replaced %d", replaced)
		delete(x.orphans, replaced)
	}
	if x.lookup(meta.RootIno, "f") != f || x.lookup(meta.RootIno, "g") != f || x.attr(f).Nlink != 2 {
		x.t.Errorf("Rename between two links of one inode changed something; want both names kept and nlink 2")
	}
}

func testRenameIntoDescendant(x *env) {
	a := x.mkdir(meta.RootIno, "a")
	b := x.mkdir(a, "b")
	c := x.mkdir(b, "c")
	cases := []struct {
		parent meta.Ino
		name   string
	}{{a, "x"}, {b, "x"}, {c, "x"}}
	for _, dst := range cases {
		_, _, _, err := x.e.Rename(x.ctx, meta.RootCred, meta.RootIno, "a", dst.parent, dst.name, 0, x.sid)
		x.want(meta.ErrInvalid, err, "Rename of a directory into %d, inside itself", dst.parent)
	}
	_, _, _, err := x.e.Rename(x.ctx, meta.RootCred, a, "b", c, "b", 0, x.sid)
	x.want(meta.ErrInvalid, err, "Rename of a directory into its grandchild")
	// Onto an ancestor of itself: the ancestor is not empty.
	_, _, _, err = x.e.Rename(x.ctx, meta.RootCred, b, "c", meta.RootIno, "a", 0, x.sid)
	x.want(meta.ErrNotEmpty, err, "Rename of a directory onto its own grandparent")
	x.create(c, "f")
	_, _, _, err = x.e.Rename(x.ctx, meta.RootCred, c, "f", meta.RootIno, "a", 0, x.sid)
	x.want(meta.ErrNotEmpty, err, "Rename of a file onto an ancestor directory of its own")
	if x.attr(a).Parent != meta.RootIno || x.attr(b).Parent != a || x.attr(c).Parent != b {
		x.t.Errorf("a refused Rename changed a Parent")
	}
	// A directory may move to a sibling's subtree.
	x.mkdir(meta.RootIno, "s")
	x.rename(meta.RootIno, "s", c, "s", 0)
}

func testRenameMissing(x *env) {
	x.create(meta.RootIno, "f")
	_, _, _, err := x.e.Rename(x.ctx, meta.RootCred, meta.RootIno, "nope", meta.RootIno, "g", 0, x.sid)
	x.want(meta.ErrNotFound, err, "Rename of a missing name")
	_, _, _, err = x.e.Rename(x.ctx, meta.RootCred, meta.RootIno, "f", 999999, "g", 0, x.sid)
	x.want(meta.ErrNotFound, err, "Rename into a missing directory")
	_, _, _, err = x.e.Rename(x.ctx, meta.RootCred, 999999, "f", meta.RootIno, "g", 0, x.sid)
	x.want(meta.ErrNotFound, err, "Rename out of a missing directory")
	x.lookup(meta.RootIno, "f")
}

func testRenameParentNotDir(x *env) {
	x.create(meta.RootIno, "f")
	g := x.create(meta.RootIno, "g")
	_, _, _, err := x.e.Rename(x.ctx, meta.RootCred, meta.RootIno, "f", g, "x", 0, x.sid)
	x.want(meta.ErrNotDir, err, "Rename into a regular file")
	_, _, _, err = x.e.Rename(x.ctx, meta.RootCred, g, "x", meta.RootIno, "y", 0, x.sid)
	x.want(meta.ErrNotDir, err, "Rename out of a regular file")
}
