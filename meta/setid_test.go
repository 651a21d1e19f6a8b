package meta_test

import (
	"testing"

	"cairn/meta"
)

// TestModeAfterWrite holds the rule to what Linux 6.18 did on ext4 for the
// same files and callers (see meta/setid.go).
func TestModeAfterWrite(t *testing.T) {
	nobody := meta.Cred{Uid: 65534, Gid: 65534}
	member := meta.Cred{Uid: 65534, Gid: 65534, Gids: []uint32{50}}
	cases := []struct {
		typ      meta.FileType
		mode     uint16
		uid, gid uint32
		cred     meta.Cred
		want     uint16
	}{
		{meta.TypeFile, 04777, 0, 0, nobody, 0777},
		{meta.TypeFile, 02777, 0, 0, nobody, 0777},
		{meta.TypeFile, 06777, 0, 0, nobody, 0777},
		{meta.TypeFile, 02767, 0, 0, nobody, 0767},
		{meta.TypeFile, 06767, 0, 0, nobody, 0767},
		{meta.TypeFile, 04766, 0, 0, nobody, 0766},
		{meta.TypeFile, 04777, 65534, 65534, nobody, 0777},
		{meta.TypeFile, 02777, 65534, 65534, nobody, 0777},
		{meta.TypeFile, 02767, 65534, 65534, nobody, 02767},
		{meta.TypeFile, 06767, 65534, 65534, nobody, 02767},
		{meta.TypeFile, 02767, 65534, 0, nobody, 0767},
		{meta.TypeFile, 02767, 0, 65534, nobody, 02767},
		{meta.TypeFile, 02767, 0, 50, member, 02767}, // a supplementary group counts
		{meta.TypeFile, 02767, 0, 51, member, 0767},
		{meta.TypeFile, 01777, 0, 0, nobody, 01777}, // sticky is not a privilege
		{meta.TypeFile, 0777, 0, 0, nobody, 0777},
		{meta.TypeFile, 06777, 65534, 65534, meta.RootCred, 06777},
		{meta.TypeFile, 02767, 65534, 65534, meta.RootCred, 02767},
		{meta.TypeDirectory, 06777, 0, 0, nobody, 06777},
		{meta.TypeFIFO, 06777, 0, 0, nobody, 06777},
	}
	for _, c := range cases {
		a := meta.Attr{Type: c.typ, Mode: c.mode, Uid: c.uid, Gid: c.gid}
		if got := meta.ModeAfterWrite(&a, c.cred); got != c.want {
			t.Errorf("type %d mode %o owned by %d:%d written by %+v: %o, want %o", c.typ, c.mode, c.uid, c.gid, c.cred, got, c.want)
		}
	}
}

// TestModeAfterChown: chown by root clears setuid always and setgid when
// group-executable; by the owner, also a setgid that is not, when the
// owner is not in the file's group (before the change).
func TestModeAfterChown(t *testing.T) {
	owner := meta.Cred{Uid: 65534, Gid: 65534}
	cases := []struct {
		typ  meta.FileType
		mode uint16
		gid  uint32
		cred meta.Cred
		want uint16
	}{
		{meta.TypeFile, 04777, 0, meta.RootCred, 0777},
		{meta.TypeFile, 02777, 0, meta.RootCred, 0777},
		{meta.TypeFile, 06777, 0, meta.RootCred, 0777},
		{meta.TypeFile, 02767, 0, meta.RootCred, 02767},
		{meta.TypeFile, 06767, 0, meta.RootCred, 02767},
		{meta.TypeFile, 02767, 65534, owner, 02767},
		{meta.TypeFile, 06767, 65534, owner, 02767},
		{meta.TypeFile, 02767, 0, owner, 0767},
		{meta.TypeFile, 06767, 0, owner, 0767},
		{meta.TypeSymlink, 04777, 0, meta.RootCred, 0777},
		{meta.TypeCharDev, 06777, 0, meta.RootCred, 0777},
		{meta.TypeDirectory, 06777, 0, meta.RootCred, 06777},
		{meta.TypeDirectory, 02767, 0, owner, 02767},
	}
	for _, c := range cases {
		a := meta.Attr{Type: c.typ, Mode: c.mode, Uid: 65534, Gid: c.gid}
		if got := meta.ModeAfterChown(&a, c.cred); got != c.want {
			t.Errorf("type %d mode %o in group %d chowned by %+v: %o, want %o", c.typ, c.mode, c.gid, c.cred, got, c.want)
		}
	}
}

// TestApplySetAttrSetid: ClearSetid and chown go through ApplySetAttr with
// the rules above, with no permission of their own, and the chown rule
// looks at the group the file had before.
func TestApplySetAttrSetid(t *testing.T) {
	nobody := meta.Cred{Uid: 65534, Gid: 65534}
	gid := func(v uint32) *uint32 { return &v }
	mode := func(v uint16) *uint16 { return &v }
	cases := []struct {
		name      string
		mode      uint16
		uid, gid  uint32
		cred      meta.Cred
		set       meta.SetAttr
		want      uint16
		wantCtime bool
	}{
		{"clear by a stranger", 06777, 0, 0, nobody, meta.SetAttr{ClearSetid: true}, 0777, true},
		{"clear, nothing to clear", 0777, 0, 0, nobody, meta.SetAttr{ClearSetid: true}, 0777, false},
		{"clear by root", 06777, 65534, 65534, meta.RootCred, meta.SetAttr{ClearSetid: true}, 06777, false},
		{"chgrp from a foreign group", 02767, 65534, 0, nobody, meta.SetAttr{Gid: gid(65534)}, 0767, true},
		{"chgrp within the own group", 06767, 65534, 65534, nobody, meta.SetAttr{Gid: gid(65534)}, 02767, true},
		{"chown with a mode keeps the mode", 06777, 0, 0, meta.RootCred, meta.SetAttr{Gid: gid(5), Mode: mode(06777)}, 06777, true},
	}
	for _, c := range cases {
		a := meta.Attr{Type: meta.TypeFile, Mode: c.mode, Uid: c.uid, Gid: c.gid, Ctime: 1}
		if err := meta.ApplySetAttr(&a, c.cred, c.set, 100); err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if a.Mode != c.want || (a.Ctime == 100) != c.wantCtime {
			t.Errorf("%s: mode %o ctime %d, want mode %o and ctime changed %v", c.name, a.Mode, a.Ctime, c.want, c.wantCtime)
		}
	}
}
