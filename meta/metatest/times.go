package metatest

import (
	"cairn/meta"
)

func timeTests() []test {
	return []test{
		{"Times/Create", testTimesCreate},
		{"Times/Unlink", testTimesUnlink},
		{"Times/Rmdir", testTimesRmdir},
		{"Times/Link", testTimesLink},
		{"Times/Rename", testTimesRename},
		{"Times/RenameReplace", testTimesRenameReplace},
		{"Times/Xattr", testTimesXattr},
		{"Times/Data", testTimesData},
		{"Times/ReadsKeepTimes", testTimesReads},
		{"Times/FailuresKeepTimes", testTimesFailures},
	}
}

// updated checks that both mtime and ctime of ino are at or after mark.
func (x *env) updated(ino meta.Ino, mark int64, what string) {
	x.t.Helper()
	a := x.attr(ino)
	if a.Mtime < mark || a.Ctime < mark {
		x.t.Errorf("%s: mtime %d ctime %d, want both >= %d (the time before the operation)", what, a.Mtime, a.Ctime, mark)
	}
}

// changed checks that ino's ctime moved to mark or later and its mtime is
// still old.
func (x *env) changed(ino meta.Ino, old meta.Attr, mark int64, what string) {
	x.t.Helper()
	a := x.attr(ino)
	if a.Ctime < mark {
		x.t.Errorf("%s: ctime %d, want >= %d (the time before the operation)", what, a.Ctime, mark)
	}
	if a.Mtime != old.Mtime {
		x.t.Errorf("%s: mtime changed from %d to %d", what, old.Mtime, a.Mtime)
	}
}

// same checks that neither mtime nor ctime of ino changed.
func (x *env) same(ino meta.Ino, old meta.Attr, what string) {
	x.t.Helper()
	a := x.attr(ino)
	if a.Mtime != old.Mtime || a.Ctime != old.Ctime {
		x.t.Errorf("%s: times changed from mtime %d ctime %d to mtime %d ctime %d", what, old.Mtime, old.Ctime, a.Mtime, a.Ctime)
	}
}

func testTimesCreate(x *env) {
	d := x.mkdir(meta.RootIno, "d")
	for _, typ := range []meta.FileType{meta.TypeFile, meta.TypeDirectory, meta.TypeFIFO} {
		root := x.attr(meta.RootIno)
		mark := x.mark()
		ino, a := x.mknodAs(meta.RootCred, d, "n"+string(rune('0'+typ)), typ, 0644)
		x.updated(d, mark, "parent after Mknod")
		if a.Mtime < mark || a.Ctime < mark || a.Atime < mark {
			x.t.Errorf("new inode %d has times %d/%d/%d, want >= %d", ino, a.Atime, a.Mtime, a.Ctime, mark)
		}
		x.same(meta.RootIno, root, "grandparent after Mknod")
	}
	mark := x.mark()
	x.symlink(d, "l", "target")
	x.updated(d, mark, "parent after symlink")
}

func testTimesUnlink(x *env) {
	d := x.mkdir(meta.RootIno, "d")
	f := x.create(d, "f")
	_, err := x.e.Link(x.ctx, meta.RootCred, f, d, "g")
	x.must(err, "Link")
	old := x.attr(f)
	mark := x.mark()
	x.unlink(d, "f")
	x.updated(d, mark, "parent after Unlink")
	x.changed(f, old, mark, "file keeping a link after Unlink")
	old = x.attr(f)
	mark = x.mark()
	x.unlink(d, "g")
	x.changed(f, old, mark, "file after Unlink of its last link")
}

func testTimesRmdir(x *env) {
	d := x.mkdir(meta.RootIno, "d")
	x.mkdir(d, "sub")
	mark := x.mark()
	x.must(x.e.Rmdir(x.ctx, meta.RootCred, d, "sub"), "Rmdir")
	x.updated(d, mark, "parent after Rmdir")
}

func testTimesLink(x *env) {
	a := x.mkdir(meta.RootIno, "a")
	b := x.mkdir(meta.RootIno, "b")
	f := x.create(a, "f")
	oldA, oldF := x.attr(a), x.attr(f)
	mark := x.mark()
	_, err := x.e.Link(x.ctx, meta.RootCred, f, b, "g")
	x.must(err, "Link")
	x.updated(b, mark, "new parent after Link")
	x.changed(f, oldF, mark, "linked file")
	x.same(a, oldA, "the first link's directory after Link")
}

func testTimesRename(x *env) {
	a := x.mkdir(meta.RootIno, "a")
	b := x.mkdir(meta.RootIno, "b")
	f := x.create(a, "f")
	sub := x.mkdir(a, "sub")
	oldF := x.attr(f)
	mark := x.mark()
	x.rename(a, "f", a, "g", 0)
	x.updated(a, mark, "parent after Rename within it")
	x.changed(f, oldF, mark, "renamed file")

	oldF = x.attr(f)
	mark = x.mark()
	x.rename(a, "g", b, "g", 0)
	x.updated(a, mark, "source parent after Rename between directories")
	x.updated(b, mark, "destination parent after Rename between directories")
	x.changed(f, oldF, mark, "file moved between directories")

	root := x.attr(meta.RootIno)
	oldSub := x.attr(sub)
	mark = x.mark()
	x.rename(a, "sub", b, "sub", 0)
	x.updated(a, mark, "source parent after moving a directory")
	x.updated(b, mark, "destination parent after moving a directory")
	if s := x.attr(sub); s.Ctime < mark {
		x.t.Errorf("moved directory: ctime %d, want >= %d", s.Ctime, mark)
	} else if s.Mtime < oldSub.Mtime {
		x.t.Errorf("moved directory: mtime went back")
	}
	x.same(meta.RootIno, root, "grandparent after Rename below it")
}

func testTimesRenameReplace(x *env) {
	d := x.mkdir(meta.RootIno, "d")
	x.create(d, "src")
	victim := x.create(d, "dst")
	_, err := x.e.Link(x.ctx, meta.RootCred, victim, meta.RootIno, "keep")
	x.must(err, "Link")
	old := x.attr(victim)
	mark := x.mark()
	x.rename(d, "src", d, "dst", 0)
	x.changed(victim, old, mark, "replaced file keeping another link")
	x.updated(d, mark, "parent after Rename over a file")

	e := x.create(d, "e1")
	g := x.create(d, "e2")
	oldE, oldG := x.attr(e), x.attr(g)
	mark = x.mark()
	x.rename(d, "e1", d, "e2", meta.RenameExchange)
	x.changed(e, oldE, mark, "first file of a RenameExchange")
	x.changed(g, oldG, mark, "second file of a RenameExchange")
	x.updated(d, mark, "parent after RenameExchange")
}

func testTimesXattr(x *env) {
	f := x.create(meta.RootIno, "f")
	old := x.attr(f)
	mark := x.mark()
	x.must(x.e.SetXattr(x.ctx, meta.RootCred, f, "user.a", []byte("v"), 0), "SetXattr")
	x.changed(f, old, mark, "file after SetXattr")
	old = x.attr(f)
	mark = x.mark()
	x.must(x.e.RemoveXattr(x.ctx, meta.RootCred, f, "user.a"), "RemoveXattr")
	x.changed(f, old, mark, "file after RemoveXattr")
	old = x.attr(f)
	_, _ = x.e.GetXattr(x.ctx, f, "user.a")
	_, _ = x.e.ListXattr(x.ctx, f)
	x.same(f, old, "file after GetXattr and ListXattr")
}

func testTimesData(x *env) {
	d := x.mkdir(meta.RootIno, "d")
	f := x.create(d, "f")
	dir := x.attr(d)
	const when = 1_234_567_890_123_456_789
	s := meta.Slice{ID: x.newSliceID(), Size: 100, Len: 100}
	a, _, err := x.e.Write(x.ctx, f, 0, s, when)
	x.must(err, "Write")
	if a.Mtime != when || a.Ctime != when {
		x.t.Errorf("Write with mtime %d gave mtime %d ctime %d", int64(when), a.Mtime, a.Ctime)
	}
	if g := x.attr(f); g != a {
		x.t.Errorf("Write returned %+v, GetAttr says %+v", a, g)
	}
	mark := x.mark()
	a, err = x.e.Truncate(x.ctx, meta.RootCred, f, 50)
	x.must(err, "Truncate")
	if a.Mtime < mark || a.Ctime < mark {
		x.t.Errorf("Truncate gave mtime %d ctime %d, want >= %d", a.Mtime, a.Ctime, mark)
	}
	mark = x.mark()
	_, err = x.e.Fallocate(x.ctx, meta.RootCred, f, 0, 0, 8192)
	x.must(err, "Fallocate")
	x.updated(f, mark, "file after Fallocate")
	mark = x.mark()
	_, err = x.e.Fallocate(x.ctx, meta.RootCred, f, meta.FallocPunchHole|meta.FallocKeepSize, 0, 4096)
	x.must(err, "Fallocate punch hole")
	x.updated(f, mark, "file after punching a hole")
	x.same(d, dir, "directory of a file whose data changed")
}

func testTimesReads(x *env) {
	d := x.mkdir(meta.RootIno, "d")
	f := x.create(d, "f")
	x.write(f, 0, 0, 10)
	x.must(x.e.SetXattr(x.ctx, meta.RootCred, f, "user.x", []byte("1"), 0), "SetXattr")
	oldD, oldF := x.attr(d), x.attr(f)
	x.lookup(d, "f")
	x.names(d)
	_, err := x.e.Readdir(x.ctx, d, "", 10, true)
	x.must(err, "Readdir plus")
	x.read(f, 0)
	x.same(d, oldD, "directory after Lookup and Readdir")
	x.same(f, oldF, "file after Lookup, Readdir plus and Read")
}

func testTimesFailures(x *env) {
	d := x.mkdir(meta.RootIno, "d")
	x.create(d, "f")
	x.mkdir(d, "sub")
	x.create(x.lookup(d, "sub"), "inner")
	old := x.attr(d)
	_, err := x.e.Mknod(x.ctx, meta.RootCred, d, "f", x.newIno(), meta.TypeFile, 0644, 0, "")
	x.want(meta.ErrExists, err, "Mknod over an existing name")
	x.want(meta.ErrNotEmpty, x.e.Rmdir(x.ctx, meta.RootCred, d, "sub"), "Rmdir of a non-empty directory")
	_, _, err = x.e.Unlink(x.ctx, meta.RootCred, d, "nope", x.sid)
	x.want(meta.ErrNotFound, err, "Unlink of a missing name")
	_, _, _, err = x.e.Rename(x.ctx, meta.RootCred, d, "f", d, "sub", 0, x.sid)
	x.want(meta.ErrIsDir, err, "Rename of a file over a directory")
	x.same(d, old, "directory after failed operations")
}
