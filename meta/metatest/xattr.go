package metatest

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"cairn/meta"
)

func xattrTests() []test {
	return []test{
		{"Xattr/SetGetListRemove", testXattrBasic},
		{"Xattr/Flags", testXattrFlags},
		{"Xattr/ENODATA", testXattrMissing},
		{"Xattr/Values", testXattrValues},
		{"Xattr/Names", testXattrNames},
		{"Xattr/Permission", testXattrPermission},
		{"Xattr/OnDirectory", testXattrOtherTypes},
		{"Xattr/GoneWithInode", testXattrGone},
	}
}

func (x *env) xattrs(ino meta.Ino) []string {
	x.t.Helper()
	names, err := x.e.ListXattr(x.ctx, ino)
	x.must(err, "ListXattr")
	sort.Strings(names)
	return names
}

func testXattrBasic(x *env) {
	f := x.create(meta.RootIno, "f")
	if names := x.xattrs(f); len(names) != 0 {
		x.t.Errorf("ListXattr of a new file = %q", names)
	}
	x.must(x.e.SetXattr(x.ctx, meta.RootCred, f, "user.b", []byte("two"), 0), "SetXattr")
	x.must(x.e.SetXattr(x.ctx, meta.RootCred, f, "user.a", []byte("one"), 0), "SetXattr")
	x.must(x.e.SetXattr(x.ctx, meta.RootCred, f, "trusted.c", []byte{0, 1, 2, 255}, 0), "SetXattr")
	for name, want := range map[string][]byte{"user.a": []byte("one"), "user.b": []byte("two"), "trusted.c": {0, 1, 2, 255}} {
		v, err := x.e.GetXattr(x.ctx, f, name)
		if x.want(nil, err, "GetXattr %s", name) && !bytes.Equal(v, want) {
			x.t.Errorf("GetXattr %s = %q, want %q", name, v, want)
		}
	}
	if names := x.xattrs(f); fmt.Sprint(names) != "[trusted.c user.a user.b]" {
		x.t.Errorf("ListXattr = %q", names)
	}
	x.must(x.e.SetXattr(x.ctx, meta.RootCred, f, "user.a", []byte("uno"), 0), "SetXattr replacing")
	if v, _ := x.e.GetXattr(x.ctx, f, "user.a"); string(v) != "uno" {
		x.t.Errorf("GetXattr after replacing = %q, want \"uno\"", v)
	}
	x.must(x.e.RemoveXattr(x.ctx, meta.RootCred, f, "user.a"), "RemoveXattr")
	_, err := x.e.GetXattr(x.ctx, f, "user.a")
	x.want(meta.ErrNoAttr, err, "GetXattr after RemoveXattr")
	if names := x.xattrs(f); fmt.Sprint(names) != "[trusted.c user.b]" {
		x.t.Errorf("ListXattr after RemoveXattr = %q", names)
	}
	// Attributes belong to the inode, not the name.
	_, err = x.e.Link(x.ctx, meta.RootCred, f, meta.RootIno, "g")
	x.must(err, "Link")
	g := x.lookup(meta.RootIno, "g")
	if v, err := x.e.GetXattr(x.ctx, g, "user.b"); err != nil || string(v) != "two" {
		x.t.Errorf("GetXattr through a hard link = %q, %v", v, err)
	}
}

func testXattrFlags(x *env) {
	f := x.create(meta.RootIno, "f")
	x.want(meta.ErrNoAttr, x.e.SetXattr(x.ctx, meta.RootCred, f, "user.k", []byte("v"), meta.XattrReplace), "XATTR_REPLACE of a missing attribute")
	_, err := x.e.GetXattr(x.ctx, f, "user.k")
	x.want(meta.ErrNoAttr, err, "GetXattr after a refused XATTR_REPLACE")
	x.want(nil, x.e.SetXattr(x.ctx, meta.RootCred, f, "user.k", []byte("v1"), meta.XattrCreate), "XATTR_CREATE of a new attribute")
	x.want(meta.ErrExists, x.e.SetXattr(x.ctx, meta.RootCred, f, "user.k", []byte("v2"), meta.XattrCreate), "XATTR_CREATE of an existing attribute")
	if v, _ := x.e.GetXattr(x.ctx, f, "user.k"); string(v) != "v1" {
		x.t.Errorf("a refused XATTR_CREATE changed the value to %q", v)
	}
	x.want(nil, x.e.SetXattr(x.ctx, meta.RootCred, f, "user.k", []byte("v3"), meta.XattrReplace), "XATTR_REPLACE of an existing attribute")
	if v, _ := x.e.GetXattr(x.ctx, f, "user.k"); string(v) != "v3" {
		x.t.Errorf("XATTR_REPLACE left the value %q, want v3", v)
	}
}

func testXattrMissing(x *env) {
	f := x.create(meta.RootIno, "f")
	_, err := x.e.GetXattr(x.ctx, f, "user.none")
	x.want(meta.ErrNoAttr, err, "GetXattr of a missing attribute")
	x.want(meta.ErrNoAttr, x.e.RemoveXattr(x.ctx, meta.RootCred, f, "user.none"), "RemoveXattr of a missing attribute")
	_, err = x.e.GetXattr(x.ctx, 999999, "user.none")
	x.want(meta.ErrNotFound, err, "GetXattr of a missing inode")
	_, err = x.e.ListXattr(x.ctx, 999999)
	x.want(meta.ErrNotFound, err, "ListXattr of a missing inode")
	x.want(meta.ErrNotFound, x.e.SetXattr(x.ctx, meta.RootCred, 999999, "user.a", nil, 0), "SetXattr of a missing inode")
}

func testXattrValues(x *env) {
	f := x.create(meta.RootIno, "f")
	x.must(x.e.SetXattr(x.ctx, meta.RootCred, f, "user.empty", []byte{}, 0), "SetXattr with an empty value")
	v, err := x.e.GetXattr(x.ctx, f, "user.empty")
	if x.want(nil, err, "GetXattr of an empty value") && len(v) != 0 {
		x.t.Errorf("empty value read back as %q", v)
	}
	if names := x.xattrs(f); len(names) != 1 || names[0] != "user.empty" {
		x.t.Errorf("ListXattr with an empty-valued attribute = %q", names)
	}
	x.must(x.e.SetXattr(x.ctx, meta.RootCred, f, "user.nil", nil, 0), "SetXattr with a nil value")
	if _, err := x.e.GetXattr(x.ctx, f, "user.nil"); err != nil {
		x.t.Errorf("GetXattr of a nil-valued attribute: %v", err)
	}
	big := bytes.Repeat([]byte("0123456789abcdef"), meta.MaxXattrValue/16)
	big[100] = 0
	x.must(x.e.SetXattr(x.ctx, meta.RootCred, f, "user.big", big, 0), "SetXattr with a %d-byte value", len(big))
	v, err = x.e.GetXattr(x.ctx, f, "user.big")
	if x.want(nil, err, "GetXattr of a %d-byte value", len(big)) && !bytes.Equal(v, big) {
		x.t.Errorf("a %d-byte value read back as %d bytes, different", len(big), len(v))
	}
	tooBig := append(big, 'x')
	x.want(meta.ErrValueTooBig, x.e.SetXattr(x.ctx, meta.RootCred, f, "user.huge", tooBig, 0), "SetXattr with a %d-byte value", len(tooBig))
}

func testXattrNames(x *env) {
	f := x.create(meta.RootIno, "f")
	name := "user." + strings.Repeat("n", meta.MaxXattrName-5)
	x.must(x.e.SetXattr(x.ctx, meta.RootCred, f, name, []byte("v"), 0), "SetXattr with a %d-byte name", len(name))
	if v, err := x.e.GetXattr(x.ctx, f, name); err != nil || string(v) != "v" {
		x.t.Errorf("GetXattr with a %d-byte name = %q, %v", len(name), v, err)
	}
	x.want(meta.ErrRange, x.e.SetXattr(x.ctx, meta.RootCred, f, name+"n", []byte("v"), 0), "SetXattr with a %d-byte name", len(name)+1)
	x.want(meta.ErrRange, x.e.SetXattr(x.ctx, meta.RootCred, f, "", []byte("v"), 0), "SetXattr with an empty name")
	// Names are case-sensitive and compared as bytes.
	x.must(x.e.SetXattr(x.ctx, meta.RootCred, f, "user.K", []byte("upper"), 0), "SetXattr")
	x.must(x.e.SetXattr(x.ctx, meta.RootCred, f, "user.k", []byte("lower"), 0), "SetXattr")
	if v, _ := x.e.GetXattr(x.ctx, f, "user.K"); string(v) != "upper" {
		x.t.Errorf("xattr names differing in case collide: user.K = %q", v)
	}
}

// Only the owner or root may change extended attributes (meta.Engine);
// Linux answers EACCES or EPERM depending on the namespace, so either is
// accepted here.
func testXattrPermission(x *env) {
	f := x.create(meta.RootIno, "f") // 0644 root
	x.must(x.e.SetXattr(x.ctx, meta.RootCred, f, "user.a", []byte("v"), 0), "SetXattr")
	denied := func(err error, what string) {
		x.t.Helper()
		if !errors.Is(err, meta.ErrNotPermitted) && !errors.Is(err, meta.ErrAccess) {
			x.t.Errorf("%s: got %v, want EPERM or EACCES", what, err)
		}
	}
	denied(x.e.SetXattr(x.ctx, nobody, f, "user.a", []byte("w"), 0), "SetXattr by nobody on root's 0644 file")
	denied(x.e.RemoveXattr(x.ctx, nobody, f, "user.a"), "RemoveXattr by nobody on root's 0644 file")
	if v, _ := x.e.GetXattr(x.ctx, f, "user.a"); string(v) != "v" {
		x.t.Errorf("a refused SetXattr changed the value to %q", v)
	}
	_, err := x.e.SetAttr(x.ctx, meta.RootCred, f, meta.SetAttr{Uid: u32(alice.Uid)})
	x.must(err, "chown")
	x.want(nil, x.e.SetXattr(x.ctx, alice, f, "user.b", []byte("mine"), 0), "SetXattr by the owner")
	x.want(nil, x.e.RemoveXattr(x.ctx, alice, f, "user.a"), "RemoveXattr by the owner")
}

func testXattrOtherTypes(x *env) {
	d := x.mkdir(meta.RootIno, "d")
	x.must(x.e.SetXattr(x.ctx, meta.RootCred, d, "user.d", []byte("dir"), 0), "SetXattr on a directory")
	if v, err := x.e.GetXattr(x.ctx, d, "user.d"); err != nil || string(v) != "dir" {
		x.t.Errorf("GetXattr on a directory = %q, %v", v, err)
	}
	x.must(x.e.SetXattr(x.ctx, meta.RootCred, meta.RootIno, "trusted.r", []byte("root"), 0), "SetXattr on the root")
	if names := x.xattrs(d); len(names) != 1 {
		x.t.Errorf("attributes leak between inodes: directory lists %q", names)
	}
}

func testXattrGone(x *env) {
	f := x.create(meta.RootIno, "f")
	x.must(x.e.SetXattr(x.ctx, meta.RootCred, f, "user.a", []byte("v"), 0), "SetXattr")
	x.unlink(meta.RootIno, "f")
	x.release(f)
	// A new inode must not see the old one's attributes, even by number.
	g := x.create(meta.RootIno, "g")
	if names := x.xattrs(g); len(names) != 0 {
		x.t.Errorf("a new file has attributes %q", names)
	}
	_, err := x.e.GetXattr(x.ctx, f, "user.a")
	if err == nil {
		x.t.Errorf("GetXattr of a released inode succeeded")
	}
}
