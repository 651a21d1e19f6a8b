package metatest

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"cairn/meta"
)

func checkTests() []test {
	return []test{
		{"Checks/Errno", testCheckErrnos},
		{"Checks/XattrCreateReplace", testXattrCreateReplace},
	}
}

// checkFixture is the tree the argument cases run against: a file f and
// a directory d in the root, f holding the xattr user.e.
type checkFixture struct {
	f, d meta.Ino
}

// checkCase is one call with a refused argument and the errno Linux
// returns for it. Where Linux checks two arguments in a known order, a
// case with both wrong pins that order.
type checkCase struct {
	what string
	call func(x *env, fx checkFixture) error
	want error
}

var (
	longName   = strings.Repeat("n", meta.MaxName+1)
	longXattr  = "user." + strings.Repeat("n", meta.MaxXattrName-4)
	longTarget = strings.Repeat("t", meta.MaxSymlink+1)
	hugeValue  = make([]byte, meta.MaxXattrValue+1)
)

func mknodCall(name string, ino func(x *env) meta.Ino, typ meta.FileType, target string) func(x *env, fx checkFixture) error {
	return func(x *env, fx checkFixture) error {
		_, err := x.e.Mknod(x.ctx, meta.RootCred, meta.RootIno, name, ino(x), typ, 0644, 0, target)
		return err
	}
}

func freshIno(x *env) meta.Ino { return x.newIno() }

func renameCall(src, dst string, flags uint32) func(x *env, fx checkFixture) error {
	return func(x *env, fx checkFixture) error {
		_, _, _, err := x.e.Rename(x.ctx, meta.RootCred, meta.RootIno, src, meta.RootIno, dst, flags, x.sid)
		return err
	}
}

func setXattrCall(name string, value []byte, flags uint32) func(x *env, fx checkFixture) error {
	return func(x *env, fx checkFixture) error {
		return x.e.SetXattr(x.ctx, meta.RootCred, fx.f, name, value, flags)
	}
}

func fallocateCall(mode uint8, off, size uint64) func(x *env, fx checkFixture) error {
	return func(x *env, fx checkFixture) error {
		_, err := x.e.Fallocate(x.ctx, meta.RootCred, fx.f, mode, off, size)
		return err
	}
}

// nameCases are the entry-name checks of every call that takes a name.
func nameCases() []checkCase {
	bad := []struct {
		name string
		want error
	}{
		{"", meta.ErrInvalid},
		{".", meta.ErrInvalid},
		{"..", meta.ErrInvalid},
		{"a/b", meta.ErrInvalid},
		{"a\x00b", meta.ErrInvalid},
		{longName, meta.ErrNameTooLong},
	}
	var cases []checkCase
	for _, b := range bad {
		name := b.name
		label := fmt.Sprintf("%q", name)
		if len(name) > meta.MaxName {
			label = "a 256-byte name"
		}
		cases = append(cases,
			checkCase{"Lookup " + label, func(x *env, fx checkFixture) error {
				_, _, err := x.e.Lookup(x.ctx, meta.RootIno, name)
				return err
			}, b.want},
			checkCase{"Mknod " + label, mknodCall(name, freshIno, meta.TypeFile, ""), b.want},
			checkCase{"mkdir " + label, mknodCall(name, freshIno, meta.TypeDirectory, ""), b.want},
			checkCase{"symlink " + label, mknodCall(name, freshIno, meta.TypeSymlink, "t"), b.want},
			checkCase{"Link " + label, func(x *env, fx checkFixture) error {
				_, err := x.e.Link(x.ctx, meta.RootCred, fx.f, meta.RootIno, name)
				return err
			}, b.want},
			checkCase{"Unlink " + label, func(x *env, fx checkFixture) error {
				_, _, err := x.e.Unlink(x.ctx, meta.RootCred, meta.RootIno, name, x.sid)
				return err
			}, b.want},
			checkCase{"Rmdir " + label, func(x *env, fx checkFixture) error {
				return x.e.Rmdir(x.ctx, meta.RootCred, meta.RootIno, name)
			}, b.want},
			checkCase{"Rename from " + label, renameCall(name, "g", 0), b.want},
			checkCase{"Rename to " + label, renameCall("f", name, 0), b.want},
		)
	}
	return cases
}

// argumentCases are the checks of every other argument, and the errno of
// a parent that is not a directory or does not exist.
func argumentCases() []checkCase {
	at := func(ino meta.Ino) func(x *env) meta.Ino { return func(*env) meta.Ino { return ino } }
	inParent := func(parent func(fx checkFixture) meta.Ino, call func(x *env, parent meta.Ino) error) func(x *env, fx checkFixture) error {
		return func(x *env, fx checkFixture) error { return call(x, parent(fx)) }
	}
	file := func(fx checkFixture) meta.Ino { return fx.f }
	missing := func(checkFixture) meta.Ino { return 999999 }
	return []checkCase{
		// Mknod's inode number, type and symlink target.
		{"Mknod of inode 0", mknodCall("x", at(0), meta.TypeFile, ""), meta.ErrInvalid},
		{"Mknod of the root's inode number", mknodCall("x", at(meta.RootIno), meta.TypeFile, ""), meta.ErrInvalid},
		{"mkdir of the root's inode number", mknodCall("x", at(meta.RootIno), meta.TypeDirectory, ""), meta.ErrInvalid},
		{"Link of the root", func(x *env, fx checkFixture) error {
			_, err := x.e.Link(x.ctx, meta.RootCred, meta.RootIno, fx.d, "root")
			return err
		}, meta.ErrNotPermitted},
		{"Mknod of type 0", mknodCall("x", freshIno, 0, ""), meta.ErrInvalid},
		{"Mknod of an unknown type", mknodCall("x", freshIno, meta.TypeSocket+1, ""), meta.ErrInvalid},
		{"symlink with an empty target", mknodCall("x", freshIno, meta.TypeSymlink, ""), meta.ErrNotFound},
		{"symlink with a 4097-byte target", mknodCall("x", freshIno, meta.TypeSymlink, longTarget), meta.ErrNameTooLong},
		{"symlink with an empty target and a 256-byte name (target first)", mknodCall(longName, freshIno, meta.TypeSymlink, ""), meta.ErrNotFound},

		// renameat2 flags, checked before the names.
		{"Rename with an unknown flag", renameCall("f", "g", 1<<2), meta.ErrInvalid},
		{"Rename with a flag from the high bits", renameCall("f", "g", 1<<31), meta.ErrInvalid},
		{"Rename with NoReplace|Exchange", renameCall("f", "g", meta.RenameNoReplace|meta.RenameExchange), meta.ErrInvalid},
		{"Rename with NoReplace|Exchange and a missing source", renameCall("missing", "g", meta.RenameNoReplace|meta.RenameExchange), meta.ErrInvalid},
		{"Rename with an unknown flag to a 256-byte name (flags first)", renameCall("f", longName, 1<<2), meta.ErrInvalid},
		{"Rename with EmptyDir without NoReplace", renameCall("f", "new", meta.RenameEmptyDir), meta.ErrInvalid},
		{"Rename with EmptyDir|Exchange", renameCall("f", "g", meta.RenameEmptyDir|meta.RenameExchange), meta.ErrInvalid},
		{"Rename with EmptyDir|NoReplace|Exchange", renameCall("f", "g", meta.RenameEmptyDir|meta.RenameNoReplace|meta.RenameExchange), meta.ErrInvalid},

		// Extended attributes: flags, then name, then value size.
		{"GetXattr with an empty name", func(x *env, fx checkFixture) error {
			_, err := x.e.GetXattr(x.ctx, fx.f, "")
			return err
		}, meta.ErrRange},
		{"GetXattr with a 256-byte name", func(x *env, fx checkFixture) error {
			_, err := x.e.GetXattr(x.ctx, fx.f, longXattr)
			return err
		}, meta.ErrRange},
		{"RemoveXattr with an empty name", func(x *env, fx checkFixture) error {
			return x.e.RemoveXattr(x.ctx, meta.RootCred, fx.f, "")
		}, meta.ErrRange},
		{"RemoveXattr with a 256-byte name", func(x *env, fx checkFixture) error {
			return x.e.RemoveXattr(x.ctx, meta.RootCred, fx.f, longXattr)
		}, meta.ErrRange},
		{"SetXattr with an empty name", setXattrCall("", []byte("v"), 0), meta.ErrRange},
		{"SetXattr with a 256-byte name", setXattrCall(longXattr, []byte("v"), 0), meta.ErrRange},
		{"SetXattr with a 65537-byte value", setXattrCall("user.big", hugeValue, 0), meta.ErrValueTooBig},
		{"SetXattr with an unknown flag", setXattrCall("user.e", []byte("v"), 4), meta.ErrInvalid},
		{"SetXattr with an unknown flag and an empty name (flags first)", setXattrCall("", []byte("v"), 4), meta.ErrInvalid},
		{"SetXattr with an unknown flag and a 65537-byte value (flags first)", setXattrCall("user.big", hugeValue, 4|meta.XattrCreate), meta.ErrInvalid},
		{"SetXattr with an empty name and a 65537-byte value (name first)", setXattrCall("", hugeValue, 0), meta.ErrRange},

		// Lengths and fallocate modes.
		{"Truncate past the largest length", func(x *env, fx checkFixture) error {
			_, err := x.e.Truncate(x.ctx, meta.RootCred, fx.f, meta.MaxLength+1)
			return err
		}, meta.ErrTooBig},
		{"Truncate to 2^63", func(x *env, fx checkFixture) error {
			_, err := x.e.Truncate(x.ctx, meta.RootCred, fx.f, 1<<63)
			return err
		}, meta.ErrTooBig},
		{"Fallocate of 0 bytes", fallocateCall(0, 0, 0), meta.ErrInvalid},
		{"Fallocate of 0 bytes in an unknown mode (size first)", fallocateCall(0x80, 0, 0), meta.ErrInvalid},
		{"Fallocate at a negative offset", fallocateCall(0, 1<<63, 10), meta.ErrInvalid},
		{"Fallocate in an unknown mode", fallocateCall(0x80, 0, 10), meta.ErrNotSupported},
		{"Fallocate punching a hole without keep-size", fallocateCall(meta.FallocPunchHole, 0, 10), meta.ErrNotSupported},
		{"Fallocate punching a hole and zeroing", fallocateCall(meta.FallocPunchHole|meta.FallocZeroRange|meta.FallocKeepSize, 0, 10), meta.ErrNotSupported},
		{"Fallocate past the largest length", fallocateCall(meta.FallocKeepSize, meta.MaxLength, 1), meta.ErrTooBig},

		// Lock types and ranges.
		{"Flock of an unknown type", func(x *env, fx checkFixture) error {
			return x.e.Flock(x.ctx, fx.f, meta.LockOwner{Session: x.sid, Owner: 1}, 7)
		}, meta.ErrInvalid},
		{"SetLk of an unknown type", func(x *env, fx checkFixture) error {
			return x.e.SetLk(x.ctx, fx.f, meta.LockOwner{Session: x.sid, Owner: 1}, meta.Lock{Type: 7, Start: 0, End: 9})
		}, meta.ErrInvalid},
		{"SetLk of a range ending before it starts", func(x *env, fx checkFixture) error {
			return x.e.SetLk(x.ctx, fx.f, meta.LockOwner{Session: x.sid, Owner: 1}, meta.Lock{Type: meta.LockWrite, Start: 10, End: 9})
		}, meta.ErrInvalid},
		{"GetLk of LockUnlock", func(x *env, fx checkFixture) error {
			_, err := x.e.GetLk(x.ctx, fx.f, meta.LockOwner{Session: x.sid, Owner: 1}, meta.Lock{Type: meta.LockUnlock, Start: 0, End: 9})
			return err
		}, meta.ErrInvalid},

		// A parent that is a file, or does not exist.
		{"Lookup in a file", inParent(file, func(x *env, p meta.Ino) error {
			_, _, err := x.e.Lookup(x.ctx, p, "x")
			return err
		}), meta.ErrNotDir},
		{"Mknod in a file", inParent(file, func(x *env, p meta.Ino) error {
			_, err := x.e.Mknod(x.ctx, meta.RootCred, p, "x", x.newIno(), meta.TypeFile, 0644, 0, "")
			return err
		}), meta.ErrNotDir},
		{"Mknod in a missing directory", inParent(missing, func(x *env, p meta.Ino) error {
			_, err := x.e.Mknod(x.ctx, meta.RootCred, p, "x", x.newIno(), meta.TypeFile, 0644, 0, "")
			return err
		}), meta.ErrNotFound},
		{"Link into a file", func(x *env, fx checkFixture) error {
			_, err := x.e.Link(x.ctx, meta.RootCred, fx.f, fx.f, "x")
			return err
		}, meta.ErrNotDir},
		{"Unlink in a file", inParent(file, func(x *env, p meta.Ino) error {
			_, _, err := x.e.Unlink(x.ctx, meta.RootCred, p, "x", x.sid)
			return err
		}), meta.ErrNotDir},
		{"Rmdir in a file", inParent(file, func(x *env, p meta.Ino) error {
			return x.e.Rmdir(x.ctx, meta.RootCred, p, "x")
		}), meta.ErrNotDir},
		{"Rename out of a file", func(x *env, fx checkFixture) error {
			_, _, _, err := x.e.Rename(x.ctx, meta.RootCred, fx.f, "x", meta.RootIno, "g", 0, x.sid)
			return err
		}, meta.ErrNotDir},
	}
}

// testCheckErrnos makes every refused call of checkCases and checks its
// errno, then that none of them changed the tree.
func testCheckErrnos(x *env) {
	fx := checkFixture{f: x.create(meta.RootIno, "f"), d: x.mkdir(meta.RootIno, "d")}
	x.must(x.e.SetXattr(x.ctx, meta.RootCred, fx.f, "user.e", []byte("v"), 0), "SetXattr user.e")
	before := x.attr(fx.f)
	for _, c := range append(nameCases(), argumentCases()...) {
		x.want(c.want, c.call(x, fx), "%s", c.what)
	}
	if n := x.names(meta.RootIno); len(n) != 2 || n[0] != "d" || n[1] != "f" {
		x.t.Errorf("root lists %q after the refused calls, want [d f]", n)
	}
	after := x.attr(fx.f)
	if after.Nlink != 1 || after.Length != 0 || after.Ctime != before.Ctime {
		x.t.Errorf("f after the refused calls: nlink %d, length %d, ctime %d; want 1, 0, %d", after.Nlink, after.Length, after.Ctime, before.Ctime)
	}
	names, err := x.e.ListXattr(x.ctx, fx.f)
	x.must(err, "ListXattr")
	sort.Strings(names)
	if len(names) != 1 || names[0] != "user.e" {
		x.t.Errorf("f's xattrs after the refused calls: %q, want [user.e]", names)
	}
}

// testXattrCreateReplace pins setxattr(2) with XATTR_CREATE|XATTR_REPLACE,
// which Linux does not refuse up front: the call fails with EEXIST when
// the attribute exists and ENODATA when it does not, and sets nothing.
func testXattrCreateReplace(x *env) {
	f := x.create(meta.RootIno, "f")
	both := meta.XattrCreate | meta.XattrReplace
	x.want(meta.ErrNoAttr, x.e.SetXattr(x.ctx, meta.RootCred, f, "user.k", []byte("v"), both), "XATTR_CREATE|XATTR_REPLACE of a missing attribute")
	if _, err := x.e.GetXattr(x.ctx, f, "user.k"); err == nil {
		x.t.Errorf("XATTR_CREATE|XATTR_REPLACE of a missing attribute created it")
	}
	x.must(x.e.SetXattr(x.ctx, meta.RootCred, f, "user.k", []byte("v1"), 0), "SetXattr")
	x.want(meta.ErrExists, x.e.SetXattr(x.ctx, meta.RootCred, f, "user.k", []byte("v2"), both), "XATTR_CREATE|XATTR_REPLACE of an existing attribute")
	if v, err := x.e.GetXattr(x.ctx, f, "user.k"); err != nil || !bytes.Equal(v, []byte("v1")) {
		x.t.Errorf("after a refused XATTR_CREATE|XATTR_REPLACE the value is %q, %v; want \"v1\"", v, err)
	}
}
