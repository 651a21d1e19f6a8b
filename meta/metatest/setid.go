package metatest

import (
	"fmt"

	"cairn/meta"
)

func setidTests() []test {
	return []test{
		{"SetAttr/ClearSetid", testClearSetid},
		{"SetAttr/ClearSetidKeepsCtime", testClearSetidKeepsCtime},
		{"SetAttr/ChownSetgid", testChownSetgid},
	}
}

// testClearSetid asks every engine for ClearSetid on files of every kind
// of owner and mode, by root, by a stranger and by a member of the file's
// group, and wants meta.ModeAfterWrite's answer, spelled out below for the
// cases Linux was checked on (see meta/setid.go).
func testClearSetid(x *env) {
	member := meta.Cred{Uid: alice.Uid, Gid: alice.Gid, Gids: []uint32{2000}}
	owners := [][2]uint32{{0, 0}, {alice.Uid, alice.Gid}, {bob.Uid, 2000}}
	modes := []uint16{04777, 02777, 06777, 02767, 06767, 0777, 01777}
	written := map[string]uint16{ // "mode by cred on owner" as Linux gives it
		"4777 by 65534 on 0:0": 0777, "2777 by 65534 on 0:0": 0777, "6777 by 65534 on 0:0": 0777,
		"2767 by 65534 on 0:0": 0767, "2767 by 1001 on 1002:2000": 02767, "2767 by 1001 on 1001:1001": 02767,
		"6767 by 1001 on 1002:2000": 02767, "6777 by 1001 on 1002:2000": 0777, "6777 by 0 on 1001:1001": 06777,
		"1777 by 65534 on 0:0": 01777,
	}
	n := 0
	for _, typ := range []meta.FileType{meta.TypeFile, meta.TypeDirectory, meta.TypeFIFO} {
		for _, owner := range owners {
			for _, mode := range modes {
				for _, cred := range []meta.Cred{nobody, meta.RootCred, member} {
					n++
					ino, _ := x.mknodAs(meta.RootCred, meta.RootIno, fmt.Sprintf("f%d", n), typ, mode)
					_, err := x.e.SetAttr(x.ctx, meta.RootCred, ino, meta.SetAttr{Uid: u32(owner[0]), Gid: u32(owner[1]), Mode: u16(mode)})
					x.must(err, "chown and chmod")
					before := x.attr(ino)
					a, err := x.e.SetAttr(x.ctx, cred, ino, meta.SetAttr{ClearSetid: true})
					if !x.want(nil, err, "ClearSetid by %d of type %d mode %o owned by %d:%d", cred.Uid, typ, mode, owner[0], owner[1]) {
						continue
					}
					want := meta.ModeAfterWrite(&before, cred)
					key := fmt.Sprintf("%o by %d on %d:%d", mode, cred.Uid, owner[0], owner[1])
					if w, ok := written[key]; ok && typ == meta.TypeFile && w != want {
						x.t.Fatalf("meta.ModeAfterWrite says %o for %s, Linux %o", want, key, w)
					}
					if a.Mode != want {
						x.t.Errorf("ClearSetid: type %d, %s: mode %o, want %o", typ, key, a.Mode, want)
					}
					if g := x.attr(ino); g != a {
						x.t.Errorf("SetAttr returned %+v, GetAttr says %+v", a, g)
					}
				}
			}
		}
	}
}

// testClearSetidKeepsCtime: a ClearSetid that changes nothing leaves ctime;
// one that clears a bit sets it.
func testClearSetidKeepsCtime(x *env) {
	f := x.create(meta.RootIno, "f")
	_, err := x.e.SetAttr(x.ctx, meta.RootCred, f, meta.SetAttr{Mode: u16(0666)})
	x.must(err, "chmod")
	before := x.attr(f)
	x.mark()
	a, err := x.e.SetAttr(x.ctx, nobody, f, meta.SetAttr{ClearSetid: true})
	if x.want(nil, err, "ClearSetid of a 0666 file") && (a.Ctime != before.Ctime || a.Mode != 0666) {
		x.t.Errorf("ClearSetid with nothing to clear: mode %o ctime %d, want 0666 and ctime %d", a.Mode, a.Ctime, before.Ctime)
	}
	_, err = x.e.SetAttr(x.ctx, meta.RootCred, f, meta.SetAttr{Mode: u16(04666)})
	x.must(err, "chmod")
	mark := x.mark()
	a, err = x.e.SetAttr(x.ctx, nobody, f, meta.SetAttr{ClearSetid: true})
	if x.want(nil, err, "ClearSetid of a 04666 file") && (a.Ctime < mark || a.Mode != 0666) {
		x.t.Errorf("ClearSetid of a 04666 file: mode %o ctime %d, want 0666 and ctime after %d", a.Mode, a.Ctime, mark)
	}
}

// testChownSetgid: chown and chgrp clear setuid, even root's and even to the
// same ids, and a setgid that is not group-executable only when the
// caller is neither root nor in the file's group before the change.
func testChownSetgid(x *env) {
	cases := []struct {
		cred       meta.Cred
		gid        uint32 // the file's group before
		set        meta.SetAttr
		mode, want uint16
	}{
		{meta.RootCred, 0, meta.SetAttr{Uid: u32(0), Gid: u32(0)}, 06767, 02767},
		{meta.RootCred, 0, meta.SetAttr{Uid: u32(0), Gid: u32(0)}, 06777, 0777},
		{meta.RootCred, 0, meta.SetAttr{Gid: u32(alice.Gid)}, 04777, 0777},
		{alice, alice.Gid, meta.SetAttr{Gid: u32(alice.Gid)}, 06767, 02767},
		{alice, 0, meta.SetAttr{Gid: u32(alice.Gid)}, 02767, 0767},
		{alice, 0, meta.SetAttr{Gid: u32(alice.Gid)}, 02777, 0777},
		{alice, alice.Gid, meta.SetAttr{Uid: u32(alice.Uid)}, 04767, 0767},
	}
	for i, c := range cases {
		ino, _ := x.mknodAs(meta.RootCred, meta.RootIno, fmt.Sprintf("f%d", i), meta.TypeFile, c.mode)
		_, err := x.e.SetAttr(x.ctx, meta.RootCred, ino, meta.SetAttr{Uid: u32(alice.Uid), Gid: u32(c.gid), Mode: u16(c.mode)})
		x.must(err, "chown and chmod")
		a, err := x.e.SetAttr(x.ctx, c.cred, ino, c.set)
		if x.want(nil, err, "case %d: chown by %d of mode %o", i, c.cred.Uid, c.mode) && a.Mode != c.want {
			x.t.Errorf("case %d: chown by %d of mode %o in group %d: mode %o, want %o", i, c.cred.Uid, c.mode, c.gid, a.Mode, c.want)
		}
	}
}
