package metatest

import (
	"cairn/meta"
)

func parentAttrTests() []test {
	return []test{
		{"ParentAttr/AfterAdd", testParentAfterAdd},
		{"ParentAttr/AfterUnlink", testParentAfterUnlink},
		{"ParentAttr/AfterRename", testParentAfterRename},
		{"ParentAttr/AfterRmdir", testParentAfterRmdir},
	}
}

// derived checks that want, what a rule derived for directory dir from
// its attributes before a change, equals what the engine says after it: a
// client answers the kernel's next GETATTR of dir from the rule.
func (x *env) derived(dir meta.Ino, rule string, want meta.Attr) {
	x.t.Helper()
	if got := x.attr(dir); got != want {
		x.t.Errorf("%s: the engine's attributes of directory %d are\n%+v\nthe rule derives\n%+v", rule, dir, got, want)
	}
}

func testParentAfterAdd(x *env) {
	d := x.mkdir(meta.RootIno, "d")
	types := []meta.FileType{meta.TypeFile, meta.TypeDirectory, meta.TypeFIFO, meta.TypeSocket, meta.TypeCharDev}
	for i, typ := range types {
		before := x.attr(d)
		_, a := x.mknodAs(meta.RootCred, d, "n"+string(rune('a'+i)), typ, 0640)
		x.derived(d, "ParentAfterAdd after Mknod", meta.ParentAfterAdd(before, a))
	}
	before := x.attr(d)
	ino := x.newIno()
	a, err := x.e.Mknod(x.ctx, meta.RootCred, d, "s", ino, meta.TypeSymlink, 0777, 0, "target")
	x.must(err, "symlink")
	x.derived(d, "ParentAfterAdd after a symlink's Mknod", meta.ParentAfterAdd(before, a))

	// A link into another directory.
	e := x.mkdir(meta.RootIno, "e")
	f := x.create(d, "f")
	before = x.attr(e)
	la, err := x.e.Link(x.ctx, meta.RootCred, f, e, "g")
	x.must(err, "Link")
	x.derived(e, "ParentAfterAdd after Link", meta.ParentAfterAdd(before, la))
}

func testParentAfterUnlink(x *env) {
	d := x.mkdir(meta.RootIno, "d")
	f := x.create(d, "f")
	_, err := x.e.Link(x.ctx, meta.RootCred, f, d, "g")
	x.must(err, "Link")
	x.mknodAs(meta.RootCred, d, "p", meta.TypeFIFO, 0600)
	for _, name := range []string{"f", "g", "p"} { // a link stays, the last goes, a special file
		before := x.attr(d)
		_, a := x.unlink(d, name)
		x.derived(d, "ParentAfterUnlink after Unlink of "+name, meta.ParentAfterUnlink(before, a))
	}
}

func testParentAfterRmdir(x *env) {
	d := x.mkdir(meta.RootIno, "d")
	x.mkdir(d, "a")
	x.mkdir(d, "b")
	x.create(d, "f") // a file stays: the rule changes links for directories only
	for _, name := range []string{"a", "b"} {
		before := x.attr(d)
		changed, err := meta.RmdirAt(x.ctx, x.e, meta.RootCred, d, name)
		x.must(err, "RmdirAt %s", name)
		if changed == 0 {
			x.t.Errorf("RmdirAt of %s does not say when it changed the directory", name)
			continue
		}
		x.derived(d, "ParentAfterRmdir after Rmdir of "+name, meta.ParentAfterRmdir(before, changed))
	}
}

func testParentAfterRename(x *env) {
	d := x.mkdir(meta.RootIno, "d")
	e := x.mkdir(meta.RootIno, "e")
	x.create(d, "f")
	x.mkdir(d, "sub")
	x.create(d, "victim")
	x.create(e, "victim")
	x.create(e, "other")
	x.mkdir(d, "kept")
	cases := []struct {
		what   string
		sp     meta.Ino
		sn     string
		dp     meta.Ino
		dn     string
		flags  uint32
		derive bool
	}{
		{"a file within a directory", d, "f", d, "g", 0, true},
		{"a file to another directory", d, "g", e, "f", 0, true},
		{"a file over a file", e, "f", d, "victim", 0, true},
		{"a file over a file in its own directory", e, "victim", e, "other", 0, true},
		{"a directory within a directory, no replace", d, "sub", d, "sub2", meta.RenameNoReplace, true},
		{"a directory to another directory, no replace", d, "sub2", e, "sub", meta.RenameNoReplace, true},
		{"a directory back, no replace", e, "sub", d, "sub", meta.RenameNoReplace, true},
		{"a directory that may replace one", d, "kept", e, "kept", 0, false},
		{"an exchange", d, "sub", e, "kept", meta.RenameExchange, false},
	}
	for _, c := range cases {
		srcBefore, dstBefore := x.attr(c.sp), x.attr(c.dp)
		moved, a, replaced, err := x.e.Rename(x.ctx, meta.RootCred, c.sp, c.sn, c.dp, c.dn, c.flags, x.sid)
		x.must(err, "Rename of %s", c.what)
		if replaced != 0 {
			x.orphans[replaced] = true
		}
		if got := meta.RenameDerivable(c.sp, c.sn, c.dp, c.dn, c.flags, a); got != c.derive {
			x.t.Errorf("RenameDerivable for %s is %v, want %v", c.what, got, c.derive)
		}
		if got := x.attr(moved); got != a {
			x.t.Errorf("Rename of %s returned\n%+v\nthe engine then reads\n%+v", c.what, a, got)
		}
		if !c.derive {
			continue
		}
		rule := "ParentAfterRename after a rename of " + c.what
		if c.sp == c.dp {
			x.derived(c.sp, rule, meta.ParentAfterRename(srcBefore, a, true, true))
			continue
		}
		x.derived(c.sp, rule+" (source)", meta.ParentAfterRename(srcBefore, a, true, false))
		x.derived(c.dp, rule+" (destination)", meta.ParentAfterRename(dstBefore, a, false, true))
	}
}
