package metatest

import (
	"cairn/meta"
)

// emptyDirFlags is how Client.Rmdir moves a directory into the trash.
const emptyDirFlags = meta.RenameNoReplace | meta.RenameEmptyDir

// testRenameEmptyDir: with meta.RenameEmptyDir a rename moves an empty
// directory, within its parent and to another, and refuses, changing
// nothing, a directory that holds a file or a directory (ENOTEMPTY) and a
// non-directory (ENOTDIR); a caller the move itself would refuse gets
// the rename's own errno first. The flag without RenameNoReplace, or
// with RenameExchange, is EINVAL (see the argument checks).
func testRenameEmptyDir(x *env) {
	a := x.mkdir(meta.RootIno, "a")
	b := x.mkdir(meta.RootIno, "b")

	e := x.mkdir(a, "e")
	moved, _ := x.rename(a, "e", b, "e2", emptyDirFlags)
	if moved != e {
		x.t.Errorf("RenameEmptyDir of an empty directory returned moved %d, want %d", moved, e)
	}
	x.gone(a, "e")
	if x.lookup(b, "e2") != e || x.attr(e).Parent != b {
		x.t.Errorf("RenameEmptyDir did not move the empty directory into b")
	}
	if x.attr(a).Nlink != 2 || x.attr(b).Nlink != 3 {
		x.t.Errorf("nlink after moving an empty directory: a=%d b=%d, want 2 and 3", x.attr(a).Nlink, x.attr(b).Nlink)
	}
	x.rename(b, "e2", b, "e3", emptyDirFlags)
	if x.lookup(b, "e3") != e {
		x.t.Errorf("RenameEmptyDir within a directory did not move the empty directory")
	}

	withFile := x.mkdir(a, "with-file")
	x.create(withFile, "f")
	withDir := x.mkdir(a, "with-dir")
	x.mkdir(withDir, "sub")
	f := x.create(a, "file")
	refused := []struct {
		name string
		ino  meta.Ino
		want error
	}{
		{"with-file", withFile, meta.ErrNotEmpty},
		{"with-dir", withDir, meta.ErrNotEmpty},
		{"file", f, meta.ErrNotDir},
	}
	beforeA, beforeB := x.attr(a), x.attr(b)
	for _, r := range refused {
		for _, dp := range []meta.Ino{b, a} {
			_, _, _, err := x.e.Rename(x.ctx, meta.RootCred, a, r.name, dp, r.name+"-moved", emptyDirFlags, x.sid)
			x.want(r.want, err, "RenameEmptyDir of %q to directory %d", r.name, dp)
			x.gone(dp, r.name+"-moved")
			if x.lookup(a, r.name) != r.ino {
				x.t.Errorf("a refused RenameEmptyDir of %q changed its entry", r.name)
			}
		}
	}
	if x.attr(withFile).Parent != a || x.attr(withDir).Parent != a {
		x.t.Errorf("a refused RenameEmptyDir changed a directory's parent")
	}
	if afterA, afterB := x.attr(a), x.attr(b); afterA != beforeA || afterB != beforeB {
		x.t.Errorf("a refused RenameEmptyDir changed the parents: a %+v -> %+v, b %+v -> %+v", beforeA, afterA, beforeB, afterB)
	}

	// The rename's own checks come first: bob may not move root's
	// directory out of root's a, full or not.
	_, _, _, err := x.e.Rename(x.ctx, bob, a, "with-file", b, "x", emptyDirFlags, x.sid)
	x.want(meta.ErrAccess, err, "RenameEmptyDir by bob of a full directory he may not move")
	// A taken destination is EEXIST, as RenameNoReplace says.
	x.mkdir(b, "taken")
	_, _, _, err = x.e.Rename(x.ctx, meta.RootCred, a, "with-file", b, "taken", emptyDirFlags, x.sid)
	x.want(meta.ErrExists, err, "RenameEmptyDir of a full directory onto a taken name")

	for _, flags := range []uint32{meta.RenameEmptyDir, meta.RenameEmptyDir | meta.RenameExchange, emptyDirFlags | meta.RenameExchange} {
		_, _, _, err := x.e.Rename(x.ctx, meta.RootCred, b, "e3", a, "e4", flags, x.sid)
		x.want(meta.ErrInvalid, err, "Rename with flags %#x", flags)
	}
	if x.lookup(b, "e3") != e {
		x.t.Errorf("a refused Rename with RenameEmptyDir moved the directory")
	}
}
