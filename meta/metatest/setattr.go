package metatest

import (
	"errors"

	"cairn/meta"
)

func setattrTests() []test {
	return []test{
		{"SetAttr/Chmod", testChmod},
		{"SetAttr/ChmodEPERM", testChmodNotOwner},
		{"SetAttr/ChownEPERM", testChownNotRoot},
		{"SetAttr/Chgrp", testChgrp},
		{"SetAttr/ChownClearsSuid", testChownClearsSuid},
		{"SetAttr/ChmodClearsSetgid", testChmodClearsSetgid},
		{"SetAttr/Times", testSetTimes},
		{"SetAttr/TimesPermission", testSetTimesPermission},
		{"SetAttr/ENOENT", testSetAttrMissing},
	}
}

func testChmod(x *env) {
	f := x.create(meta.RootIno, "f")
	d := x.mkdir(meta.RootIno, "d")
	for _, ino := range []meta.Ino{f, d} {
		for _, mode := range []uint16{0, 0600, 0777, 04755, 02750, 01777, 07777} {
			a, err := x.e.SetAttr(x.ctx, meta.RootCred, ino, meta.SetAttr{Mode: u16(mode)})
			if !x.want(nil, err, "chmod %o", mode) {
				continue
			}
			if a.Mode != mode {
				x.t.Errorf("chmod %o by root left mode %o", mode, a.Mode)
			}
			if g := x.attr(ino); g != a {
				x.t.Errorf("SetAttr returned %+v, GetAttr says %+v", a, g)
			}
		}
	}
	// The owner may chmod.
	_, err := x.e.SetAttr(x.ctx, meta.RootCred, f, meta.SetAttr{Uid: u32(alice.Uid), Gid: u32(alice.Gid)})
	x.must(err, "chown")
	a, err := x.e.SetAttr(x.ctx, alice, f, meta.SetAttr{Mode: u16(0604)})
	if x.want(nil, err, "chmod by the owner") && a.Mode != 0604 {
		x.t.Errorf("chmod 0604 by the owner left mode %o", a.Mode)
	}
}

func testChmodNotOwner(x *env) {
	f := x.create(meta.RootIno, "f")
	_, err := x.e.SetAttr(x.ctx, nobody, f, meta.SetAttr{Mode: u16(0777)})
	x.want(meta.ErrNotPermitted, err, "chmod by nobody of root's file")
	_, err = x.e.SetAttr(x.ctx, meta.RootCred, f, meta.SetAttr{Mode: u16(0666)})
	x.must(err, "chmod")
	_, err = x.e.SetAttr(x.ctx, nobody, f, meta.SetAttr{Mode: u16(0777)})
	x.want(meta.ErrNotPermitted, err, "chmod by nobody of root's 0666 file (write permission is not ownership)")
	if a := x.attr(f); a.Mode != 0666 {
		x.t.Errorf("refused chmod changed the mode to %o", a.Mode)
	}
}

func testChownNotRoot(x *env) {
	f := x.create(meta.RootIno, "f")
	_, err := x.e.SetAttr(x.ctx, meta.RootCred, f, meta.SetAttr{Uid: u32(alice.Uid), Gid: u32(alice.Gid)})
	x.must(err, "chown by root")
	a := x.attr(f)
	if a.Uid != alice.Uid || a.Gid != alice.Gid {
		x.t.Fatalf("chown by root left %d:%d", a.Uid, a.Gid)
	}
	_, err = x.e.SetAttr(x.ctx, alice, f, meta.SetAttr{Uid: u32(bob.Uid)})
	x.want(meta.ErrNotPermitted, err, "chown by the owner to another user")
	_, err = x.e.SetAttr(x.ctx, nobody, f, meta.SetAttr{Uid: u32(nobody.Uid)})
	x.want(meta.ErrNotPermitted, err, "chown by nobody to themself")
	_, err = x.e.SetAttr(x.ctx, alice, f, meta.SetAttr{Uid: u32(alice.Uid)})
	x.want(nil, err, "chown by the owner to themself (no change)")
	if g := x.attr(f); g.Uid != alice.Uid {
		x.t.Errorf("refused chown changed the owner to %d", g.Uid)
	}
}

func testChgrp(x *env) {
	f := x.create(meta.RootIno, "f")
	_, err := x.e.SetAttr(x.ctx, meta.RootCred, f, meta.SetAttr{Uid: u32(alice.Uid)})
	x.must(err, "chown")
	a, err := x.e.SetAttr(x.ctx, alice, f, meta.SetAttr{Gid: u32(alice.Gid)})
	if x.want(nil, err, "chgrp by the owner to her own group") && a.Gid != alice.Gid {
		x.t.Errorf("chgrp left gid %d", a.Gid)
	}
	_, err = x.e.SetAttr(x.ctx, alice, f, meta.SetAttr{Gid: u32(2000)})
	x.want(meta.ErrNotPermitted, err, "chgrp by the owner to a group she is not in")
	withGroup := meta.Cred{Uid: alice.Uid, Gid: alice.Gid, Gids: []uint32{2000}}
	a, err = x.e.SetAttr(x.ctx, withGroup, f, meta.SetAttr{Gid: u32(2000)})
	if x.want(nil, err, "chgrp by the owner to a supplementary group") && a.Gid != 2000 {
		x.t.Errorf("chgrp left gid %d", a.Gid)
	}
	_, err = x.e.SetAttr(x.ctx, bob, f, meta.SetAttr{Gid: u32(bob.Gid)})
	x.want(meta.ErrNotPermitted, err, "chgrp by a non-owner")
}

func testChownClearsSuid(x *env) {
	cases := []struct {
		typ        meta.FileType
		mode, want uint16
	}{
		{meta.TypeFile, 06755, 0755},  // setuid and group-exec setgid cleared
		{meta.TypeFile, 06745, 02745}, // setgid without group exec stays
		{meta.TypeDirectory, 06755, 06755},
	}
	for i, c := range cases {
		ino, _ := x.mknodAs(meta.RootCred, meta.RootIno, string(rune('a'+i)), c.typ, c.mode)
		a, err := x.e.SetAttr(x.ctx, meta.RootCred, ino, meta.SetAttr{Uid: u32(alice.Uid), Gid: u32(alice.Gid)})
		if x.want(nil, err, "chown") && a.Mode != c.want {
			x.t.Errorf("chown of type %d mode %o left mode %o, want %o", c.typ, c.mode, a.Mode, c.want)
		}
	}
}

func testChmodClearsSetgid(x *env) {
	f := x.create(meta.RootIno, "f")
	_, err := x.e.SetAttr(x.ctx, meta.RootCred, f, meta.SetAttr{Uid: u32(alice.Uid), Gid: u32(2000)})
	x.must(err, "chown")
	a, err := x.e.SetAttr(x.ctx, alice, f, meta.SetAttr{Mode: u16(02755)})
	if x.want(nil, err, "chmod 02755 by the owner, not in the file's group") && a.Mode != 0755 {
		x.t.Errorf("chmod 02755 by a non-member of the group left mode %o, want 0755", a.Mode)
	}
	withGroup := meta.Cred{Uid: alice.Uid, Gid: alice.Gid, Gids: []uint32{2000}}
	a, err = x.e.SetAttr(x.ctx, withGroup, f, meta.SetAttr{Mode: u16(02755)})
	if x.want(nil, err, "chmod 02755 by the owner, in the file's group") && a.Mode != 02755 {
		x.t.Errorf("chmod 02755 by a member of the group left mode %o, want 02755", a.Mode)
	}
}

func testSetTimes(x *env) {
	f := x.create(meta.RootIno, "f")
	mark := x.mark()
	a, err := x.e.SetAttr(x.ctx, meta.RootCred, f, meta.SetAttr{Atime: i64(1_000_000_123), Mtime: i64(2_000_000_456)})
	x.must(err, "SetAttr times")
	if a.Atime != 1_000_000_123 || a.Mtime != 2_000_000_456 {
		x.t.Errorf("explicit times stored as atime %d mtime %d", a.Atime, a.Mtime)
	}
	if a.Ctime < mark {
		x.t.Errorf("SetAttr of times left ctime %d before the call (%d)", a.Ctime, mark)
	}
	mark = x.mark()
	a, err = x.e.SetAttr(x.ctx, meta.RootCred, f, meta.SetAttr{AtimeNow: true, MtimeNow: true})
	x.must(err, "SetAttr UTIME_NOW")
	if a.Atime < mark || a.Mtime < mark || a.Ctime < mark {
		x.t.Errorf("UTIME_NOW gave atime %d mtime %d ctime %d, want all >= %d", a.Atime, a.Mtime, a.Ctime, mark)
	}
	// Setting only mtime keeps atime.
	a, err = x.e.SetAttr(x.ctx, meta.RootCred, f, meta.SetAttr{Mtime: i64(3_000_000_000)})
	x.must(err, "SetAttr mtime")
	if a.Mtime != 3_000_000_000 || a.Atime < mark {
		x.t.Errorf("setting mtime alone gave atime %d mtime %d", a.Atime, a.Mtime)
	}
	// chmod changes ctime, not mtime.
	mark = x.mark()
	a, err = x.e.SetAttr(x.ctx, meta.RootCred, f, meta.SetAttr{Mode: u16(0600)})
	x.must(err, "chmod")
	if a.Mtime != 3_000_000_000 || a.Ctime < mark {
		x.t.Errorf("chmod gave mtime %d ctime %d; want mtime unchanged and ctime >= %d", a.Mtime, a.Ctime, mark)
	}
}

func testSetTimesPermission(x *env) {
	f := x.create(meta.RootIno, "f") // 0644 root
	_, err := x.e.SetAttr(x.ctx, nobody, f, meta.SetAttr{Mtime: i64(1)})
	x.want(meta.ErrNotPermitted, err, "explicit mtime by a non-owner")
	_, err = x.e.SetAttr(x.ctx, nobody, f, meta.SetAttr{MtimeNow: true, AtimeNow: true})
	x.want(meta.ErrAccess, err, "UTIME_NOW by a non-owner without write permission")
	_, err = x.e.SetAttr(x.ctx, meta.RootCred, f, meta.SetAttr{Mode: u16(0666)})
	x.must(err, "chmod")
	_, err = x.e.SetAttr(x.ctx, nobody, f, meta.SetAttr{MtimeNow: true, AtimeNow: true})
	x.want(nil, err, "UTIME_NOW by a non-owner with write permission")
	_, err = x.e.SetAttr(x.ctx, nobody, f, meta.SetAttr{Atime: i64(5)})
	x.want(meta.ErrNotPermitted, err, "explicit atime by a non-owner with write permission")
}

func testSetAttrMissing(x *env) {
	_, err := x.e.SetAttr(x.ctx, meta.RootCred, 999999, meta.SetAttr{Mode: u16(0644)})
	if !errors.Is(err, meta.ErrNotFound) {
		x.t.Errorf("SetAttr of a missing inode: got %v, want ENOENT", err)
	}
}
