package metatest

import (
	"strings"

	"cairn/meta"
)

func entryTests() []test {
	return []test{
		{"Mknod/Types", testMknodTypes},
		{"Mknod/ReturnsGetAttr", testMknodReturnsGetAttr},
		{"Mknod/EEXIST", testMknodExists},
		{"Mknod/ENOENT", testMknodNoParent},
		{"Mknod/ENOTDIR", testMknodParentNotDir},
		{"Symlink/Target", testSymlinkTarget},
		{"Symlink/TooLong", testSymlinkTooLong},
		{"Symlink/EmptyTarget", testSymlinkEmpty},
		{"Readlink/EINVAL", testReadlinkNotSymlink},
		{"Lookup/ENOENT", testLookupMissing},
		{"Lookup/ENOTDIR", testLookupInFile},
		{"GetAttr/ENOENT", testGetAttrMissing},
		{"Mkdir/Nlink", testMkdirNlink},
		{"Mkdir/EEXIST", testMkdirExists},
		{"Rmdir/Nlink", testRmdirNlink},
		{"Rmdir/ENOTEMPTY", testRmdirNotEmpty},
		{"Rmdir/ENOTDIR", testRmdirFile},
		{"Rmdir/ENOENT", testRmdirMissing},
		{"Link/Nlink", testLinkNlink},
		{"Link/EEXIST", testLinkExists},
		{"Link/EPERM", testLinkDir},
		{"Link/ENOENT", testLinkMissing},
		{"Link/ENOTDIR", testLinkParentNotDir},
		{"Link/Orphan", testLinkOrphan},
		{"Unlink/Nlink", testUnlinkNlink},
		{"Unlink/EISDIR", testUnlinkDir},
		{"Unlink/ENOENT", testUnlinkMissing},
		{"Unlink/ENOTDIR", testUnlinkParentNotDir},
	}
}

func testMknodTypes(x *env) {
	d := x.mkdir(meta.RootIno, "d")
	cases := []struct {
		name string
		typ  meta.FileType
		mode uint16
		rdev uint32
	}{
		{"file", meta.TypeFile, 0640, 0},
		{"dir", meta.TypeDirectory, 0750, 0},
		{"fifo", meta.TypeFIFO, 0600, 0},
		{"socket", meta.TypeSocket, 0755, 0},
		{"chardev", meta.TypeCharDev, 0620, 1<<8 | 3},
		{"blockdev", meta.TypeBlockDev, 0660, 8<<8 | 1},
		{"suid", meta.TypeFile, 04755, 0},
		{"sticky", meta.TypeDirectory, 01777, 0},
	}
	for _, c := range cases {
		ino := x.newIno()
		a, err := x.e.Mknod(x.ctx, meta.RootCred, d, c.name, ino, c.typ, c.mode, c.rdev, "")
		if !x.want(nil, err, "Mknod %s", c.name) {
			continue
		}
		if a.Type != c.typ || a.Mode != c.mode || a.Uid != 0 || a.Gid != 0 {
			x.t.Errorf("Mknod %s returned %+v, want type %d mode %o owned by 0:0", c.name, a, c.typ, c.mode)
		}
		if (c.typ == meta.TypeCharDev || c.typ == meta.TypeBlockDev) && a.Rdev != c.rdev {
			x.t.Errorf("Mknod %s: Rdev %#x, want %#x", c.name, a.Rdev, c.rdev)
		}
		wantLink, wantLen, wantParent := uint32(1), uint64(0), meta.Ino(0)
		if c.typ == meta.TypeDirectory {
			wantLink, wantLen, wantParent = 2, 4096, d
		}
		if a.Nlink != wantLink || a.Length != wantLen || a.Parent != wantParent {
			x.t.Errorf("Mknod %s: nlink %d length %d parent %d, want %d %d %d", c.name, a.Nlink, a.Length, a.Parent, wantLink, wantLen, wantParent)
		}
		got, la, err := x.e.Lookup(x.ctx, d, c.name)
		if x.want(nil, err, "Lookup %s", c.name) && (got != ino || la != a) {
			x.t.Errorf("Lookup %s = %d %+v, want %d %+v", c.name, got, la, ino, a)
		}
	}
}

func testMknodReturnsGetAttr(x *env) {
	for _, typ := range []meta.FileType{meta.TypeFile, meta.TypeDirectory, meta.TypeFIFO} {
		ino, a := x.mknodAs(meta.RootCred, meta.RootIno, "n"+string(rune('0'+typ)), typ, 0644)
		if g := x.attr(ino); g != a {
			x.t.Errorf("Mknod type %d returned %+v, GetAttr says %+v", typ, a, g)
		}
		if a.Atime == 0 || a.Mtime == 0 || a.Ctime == 0 {
			x.t.Errorf("Mknod type %d left a time zero: %+v", typ, a)
		}
	}
}

func testMknodExists(x *env) {
	f := x.create(meta.RootIno, "f")
	d := x.mkdir(meta.RootIno, "d")
	for _, name := range []string{"f", "d"} {
		for _, typ := range []meta.FileType{meta.TypeFile, meta.TypeDirectory, meta.TypeSymlink} {
			_, err := x.e.Mknod(x.ctx, meta.RootCred, meta.RootIno, name, x.newIno(), typ, 0644, 0, "t")
			x.want(meta.ErrExists, err, "Mknod type %d over existing %q", typ, name)
		}
	}
	if x.lookup(meta.RootIno, "f") != f || x.lookup(meta.RootIno, "d") != d {
		x.t.Errorf("a failed Mknod replaced an existing entry")
	}
	if a := x.attr(meta.RootIno); a.Nlink != 3 {
		x.t.Errorf("root nlink %d after failed mkdirs, want 3", a.Nlink)
	}
}

func testMknodNoParent(x *env) {
	d := x.mkdir(meta.RootIno, "d")
	x.must(x.e.Rmdir(x.ctx, meta.RootCred, meta.RootIno, "d"), "Rmdir")
	_, err := x.e.Mknod(x.ctx, meta.RootCred, d, "f", x.newIno(), meta.TypeFile, 0644, 0, "")
	x.want(meta.ErrNotFound, err, "Mknod in a removed directory")
	_, err = x.e.Mknod(x.ctx, meta.RootCred, 999999, "f", x.newIno(), meta.TypeDirectory, 0755, 0, "")
	x.want(meta.ErrNotFound, err, "Mknod in a parent that never existed")
}

func testMknodParentNotDir(x *env) {
	f := x.create(meta.RootIno, "f")
	_, err := x.e.Mknod(x.ctx, meta.RootCred, f, "g", x.newIno(), meta.TypeFile, 0644, 0, "")
	x.want(meta.ErrNotDir, err, "Mknod in a regular file")
}

func testSymlinkTarget(x *env) {
	for i, target := range []string{"a", "../x/y", "/abs/path with spaces", strings.Repeat("t", meta.MaxSymlink)} {
		name := "l" + string(rune('0'+i))
		ino := x.newIno()
		a, err := x.e.Mknod(x.ctx, meta.RootCred, meta.RootIno, name, ino, meta.TypeSymlink, 0777, 0, target)
		if !x.want(nil, err, "symlink with a %d-byte target", len(target)) {
			continue
		}
		if a.Type != meta.TypeSymlink || a.Length != uint64(len(target)) || a.Nlink != 1 {
			x.t.Errorf("symlink attributes %+v, want type symlink, length %d, nlink 1", a, len(target))
		}
		got, err := x.e.Readlink(x.ctx, ino)
		if x.want(nil, err, "Readlink") && got != target {
			x.t.Errorf("Readlink = %q, want %q", got, target)
		}
	}
}

func testSymlinkTooLong(x *env) {
	_, err := x.e.Mknod(x.ctx, meta.RootCred, meta.RootIno, "l", x.newIno(), meta.TypeSymlink, 0777, 0, strings.Repeat("t", meta.MaxSymlink+1))
	x.want(meta.ErrNameTooLong, err, "symlink with a %d-byte target", meta.MaxSymlink+1)
	x.gone(meta.RootIno, "l")
}

// Linux refuses an empty symlink target with ENOENT.
func testSymlinkEmpty(x *env) {
	_, err := x.e.Mknod(x.ctx, meta.RootCred, meta.RootIno, "l", x.newIno(), meta.TypeSymlink, 0777, 0, "")
	x.want(meta.ErrNotFound, err, "symlink with an empty target")
}

func testReadlinkNotSymlink(x *env) {
	f := x.create(meta.RootIno, "f")
	_, err := x.e.Readlink(x.ctx, f)
	x.want(meta.ErrInvalid, err, "Readlink of a regular file")
	_, err = x.e.Readlink(x.ctx, meta.RootIno)
	x.want(meta.ErrInvalid, err, "Readlink of a directory")
	_, err = x.e.Readlink(x.ctx, 999999)
	x.want(meta.ErrNotFound, err, "Readlink of a missing inode")
}

func testLookupMissing(x *env) {
	x.create(meta.RootIno, "f")
	_, _, err := x.e.Lookup(x.ctx, meta.RootIno, "g")
	x.want(meta.ErrNotFound, err, "Lookup of a missing name")
	_, _, err = x.e.Lookup(x.ctx, meta.RootIno, "F")
	x.want(meta.ErrNotFound, err, "Lookup is case-sensitive: \"F\" when \"f\" exists")
	_, _, err = x.e.Lookup(x.ctx, 999999, "f")
	x.want(meta.ErrNotFound, err, "Lookup in a missing directory")
}

func testLookupInFile(x *env) {
	f := x.create(meta.RootIno, "f")
	_, _, err := x.e.Lookup(x.ctx, f, "x")
	x.want(meta.ErrNotDir, err, "Lookup in a regular file")
}

func testGetAttrMissing(x *env) {
	_, err := x.e.GetAttr(x.ctx, 999999)
	x.want(meta.ErrNotFound, err, "GetAttr of an inode that never existed")
	d := x.mkdir(meta.RootIno, "d")
	x.must(x.e.Rmdir(x.ctx, meta.RootCred, meta.RootIno, "d"), "Rmdir")
	_, err = x.e.GetAttr(x.ctx, d)
	x.want(meta.ErrNotFound, err, "GetAttr of a removed directory")
}

func testMkdirNlink(x *env) {
	a := x.mkdir(meta.RootIno, "a")
	if n := x.attr(meta.RootIno).Nlink; n != 3 {
		x.t.Errorf("root nlink %d after one mkdir, want 3", n)
	}
	x.mkdir(a, "b")
	x.mkdir(a, "c")
	x.create(a, "f")
	if n := x.attr(a).Nlink; n != 4 {
		x.t.Errorf("nlink %d of a directory with 2 subdirectories and a file, want 4", n)
	}
	if n := x.attr(meta.RootIno).Nlink; n != 3 {
		x.t.Errorf("root nlink %d after mkdirs in a subdirectory, want 3", n)
	}
}

func testMkdirExists(x *env) {
	x.mkdir(meta.RootIno, "d")
	_, err := x.e.Mknod(x.ctx, meta.RootCred, meta.RootIno, "d", x.newIno(), meta.TypeDirectory, 0755, 0, "")
	x.want(meta.ErrExists, err, "mkdir of an existing name")
	if n := x.attr(meta.RootIno).Nlink; n != 3 {
		x.t.Errorf("root nlink %d after a refused mkdir, want 3", n)
	}
}

func testRmdirNlink(x *env) {
	a := x.mkdir(meta.RootIno, "a")
	b := x.mkdir(a, "b")
	x.must(x.e.Rmdir(x.ctx, meta.RootCred, a, "b"), "Rmdir")
	if n := x.attr(a).Nlink; n != 2 {
		x.t.Errorf("nlink %d of a directory after rmdir of its only subdirectory, want 2", n)
	}
	x.gone(a, "b")
	if _, err := x.e.GetAttr(x.ctx, b); err == nil {
		x.t.Errorf("GetAttr of a removed directory succeeded")
	}
	x.must(x.e.Rmdir(x.ctx, meta.RootCred, meta.RootIno, "a"), "Rmdir")
	if n := x.attr(meta.RootIno).Nlink; n != 2 {
		x.t.Errorf("root nlink %d after rmdir, want 2", n)
	}
}

func testRmdirNotEmpty(x *env) {
	a := x.mkdir(meta.RootIno, "a")
	x.create(a, "f")
	x.want(meta.ErrNotEmpty, x.e.Rmdir(x.ctx, meta.RootCred, meta.RootIno, "a"), "Rmdir of a directory holding a file")
	b := x.mkdir(meta.RootIno, "b")
	x.mkdir(b, "sub")
	x.want(meta.ErrNotEmpty, x.e.Rmdir(x.ctx, meta.RootCred, meta.RootIno, "b"), "Rmdir of a directory holding a directory")
	if n := x.attr(meta.RootIno).Nlink; n != 4 {
		x.t.Errorf("root nlink %d after refused rmdirs, want 4", n)
	}
}

func testRmdirFile(x *env) {
	x.create(meta.RootIno, "f")
	x.want(meta.ErrNotDir, x.e.Rmdir(x.ctx, meta.RootCred, meta.RootIno, "f"), "Rmdir of a regular file")
	x.symlink(meta.RootIno, "l", "d")
	x.want(meta.ErrNotDir, x.e.Rmdir(x.ctx, meta.RootCred, meta.RootIno, "l"), "Rmdir of a symlink")
}

func testRmdirMissing(x *env) {
	x.want(meta.ErrNotFound, x.e.Rmdir(x.ctx, meta.RootCred, meta.RootIno, "nope"), "Rmdir of a missing name")
	f := x.create(meta.RootIno, "f")
	x.want(meta.ErrNotDir, x.e.Rmdir(x.ctx, meta.RootCred, f, "x"), "Rmdir in a regular file")
}

func testLinkNlink(x *env) {
	a := x.mkdir(meta.RootIno, "a")
	b := x.mkdir(meta.RootIno, "b")
	f := x.create(a, "f")
	la, err := x.e.Link(x.ctx, meta.RootCred, f, b, "g")
	x.must(err, "Link")
	if la.Nlink != 2 {
		x.t.Errorf("Link returned nlink %d, want 2", la.Nlink)
	}
	la, err = x.e.Link(x.ctx, meta.RootCred, f, a, "h")
	x.must(err, "Link")
	if la.Nlink != 3 || x.attr(f).Nlink != 3 {
		x.t.Errorf("nlink after two links: returned %d, GetAttr %d, want 3", la.Nlink, x.attr(f).Nlink)
	}
	if la != x.attr(f) {
		x.t.Errorf("Link returned %+v, GetAttr says %+v", la, x.attr(f))
	}
	if x.lookup(b, "g") != f || x.lookup(a, "h") != f {
		x.t.Errorf("hard links do not name the linked inode")
	}
	if n := x.attr(b).Nlink; n != 2 {
		x.t.Errorf("a hard link changed its directory's nlink to %d", n)
	}
	l := x.symlink(a, "sym", "f")
	if _, err := x.e.Link(x.ctx, meta.RootCred, l, b, "sym2"); x.want(nil, err, "Link of a symlink") {
		if n := x.attr(l).Nlink; n != 2 {
			x.t.Errorf("symlink nlink %d after Link, want 2", n)
		}
	}
}

func testLinkExists(x *env) {
	f := x.create(meta.RootIno, "f")
	x.create(meta.RootIno, "g")
	x.mkdir(meta.RootIno, "d")
	for _, name := range []string{"g", "d", "f"} {
		_, err := x.e.Link(x.ctx, meta.RootCred, f, meta.RootIno, name)
		x.want(meta.ErrExists, err, "Link onto existing %q", name)
	}
	if n := x.attr(f).Nlink; n != 1 {
		x.t.Errorf("nlink %d after refused links, want 1", n)
	}
}

// Linux refuses hard links to directories with EPERM.
func testLinkDir(x *env) {
	d := x.mkdir(meta.RootIno, "d")
	_, err := x.e.Link(x.ctx, meta.RootCred, d, meta.RootIno, "d2")
	x.want(meta.ErrNotPermitted, err, "Link of a directory")
	x.gone(meta.RootIno, "d2")
}

func testLinkMissing(x *env) {
	_, err := x.e.Link(x.ctx, meta.RootCred, 999999, meta.RootIno, "x")
	x.want(meta.ErrNotFound, err, "Link of a missing inode")
	f := x.create(meta.RootIno, "f")
	_, err = x.e.Link(x.ctx, meta.RootCred, f, 999999, "x")
	x.want(meta.ErrNotFound, err, "Link into a missing directory")
}

func testLinkParentNotDir(x *env) {
	f := x.create(meta.RootIno, "f")
	g := x.create(meta.RootIno, "g")
	_, err := x.e.Link(x.ctx, meta.RootCred, f, g, "x")
	x.want(meta.ErrNotDir, err, "Link into a regular file")
}

// Linux refuses to link an inode whose last link is gone (ENOENT).
func testLinkOrphan(x *env) {
	f := x.create(meta.RootIno, "f")
	x.unlink(meta.RootIno, "f")
	_, err := x.e.Link(x.ctx, meta.RootCred, f, meta.RootIno, "g")
	x.want(meta.ErrNotFound, err, "Link of an unlinked, unreleased inode")
	x.gone(meta.RootIno, "g")
	if a := x.attr(f); a.Nlink != 0 {
		x.t.Errorf("orphan has nlink %d after a refused Link", a.Nlink)
	}
}

func testUnlinkNlink(x *env) {
	f := x.create(meta.RootIno, "f")
	_, err := x.e.Link(x.ctx, meta.RootCred, f, meta.RootIno, "g")
	x.must(err, "Link")
	ino, a := x.unlink(meta.RootIno, "f")
	if ino != f || a.Nlink != 1 {
		x.t.Errorf("Unlink of one of two links returned %d nlink %d, want %d nlink 1", ino, a.Nlink, f)
	}
	if g := x.attr(f); g != a {
		x.t.Errorf("Unlink returned %+v, GetAttr says %+v", a, g)
	}
	x.gone(meta.RootIno, "f")
	if x.lookup(meta.RootIno, "g") != f {
		x.t.Errorf("the other link is gone")
	}
	ino, a = x.unlink(meta.RootIno, "g")
	if ino != f || a.Nlink != 0 {
		x.t.Errorf("Unlink of the last link returned %d nlink %d, want %d nlink 0", ino, a.Nlink, f)
	}
	x.release(f)
	for _, typ := range []meta.FileType{meta.TypeFIFO, meta.TypeSocket, meta.TypeCharDev, meta.TypeSymlink} {
		ino := x.newIno()
		target := ""
		if typ == meta.TypeSymlink {
			target = "target"
		}
		_, err := x.e.Mknod(x.ctx, meta.RootCred, meta.RootIno, "s", ino, typ, 0644, 0, target)
		x.must(err, "Mknod type %d", typ)
		got, a := x.unlink(meta.RootIno, "s")
		if got != ino || a.Nlink != 0 {
			x.t.Errorf("Unlink of type %d returned %d nlink %d, want %d nlink 0", typ, got, a.Nlink, ino)
		}
		x.release(ino)
		if _, err := x.e.GetAttr(x.ctx, ino); err == nil {
			x.t.Errorf("inode of type %d still exists after Unlink and ReleaseOrphan", typ)
		}
	}
}

// Linux's unlink of a directory fails with EISDIR.
func testUnlinkDir(x *env) {
	x.mkdir(meta.RootIno, "d")
	_, _, err := x.e.Unlink(x.ctx, meta.RootCred, meta.RootIno, "d", x.sid)
	x.want(meta.ErrIsDir, err, "Unlink of a directory")
	x.lookup(meta.RootIno, "d")
}

func testUnlinkMissing(x *env) {
	_, _, err := x.e.Unlink(x.ctx, meta.RootCred, meta.RootIno, "nope", x.sid)
	x.want(meta.ErrNotFound, err, "Unlink of a missing name")
	_, _, err = x.e.Unlink(x.ctx, meta.RootCred, 999999, "nope", x.sid)
	x.want(meta.ErrNotFound, err, "Unlink in a missing directory")
}

func testUnlinkParentNotDir(x *env) {
	f := x.create(meta.RootIno, "f")
	_, _, err := x.e.Unlink(x.ctx, meta.RootCred, f, "x", x.sid)
	x.want(meta.ErrNotDir, err, "Unlink in a regular file")
}
