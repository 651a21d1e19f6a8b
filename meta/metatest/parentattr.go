package metatest

import (
	"cairn/meta"
)

func parentAttrTests() []test {
	return []test{
		{"ParentAttr/AfterAdd", testParentAfterAdd},
		{"ParentAttr/AfterUnlink", testParentAfterUnlink},
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
