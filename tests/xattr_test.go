package tests

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestXattrs(t *testing.T) {
	v := newVolume(t)
	f := v.path("file")
	writeFile(t, f, []byte("x"))
	must(t, os.Mkdir(v.path("dir"), 0o755), "mkdir")

	must(t, unix.Setxattr(f, "user.color", []byte("blue"), 0), "setxattr")
	get := func(path, name string) ([]byte, error) {
		n, err := unix.Getxattr(path, name, nil) // size query
		if err != nil {
			return nil, err
		}
		buf := make([]byte, n)
		n, err = unix.Getxattr(path, name, buf)
		return buf[:n], err
	}
	if got, err := get(f, "user.color"); err != nil || string(got) != "blue" {
		t.Errorf("getxattr: %q, %v", got, err)
	}
	// XATTR_CREATE refuses an existing name; XATTR_REPLACE a missing one.
	wantErrno(t, unix.Setxattr(f, "user.color", []byte("red"), unix.XATTR_CREATE), unix.EEXIST, "XATTR_CREATE on an existing name")
	wantErrno(t, unix.Setxattr(f, "user.size", []byte("big"), unix.XATTR_REPLACE), unix.ENODATA, "XATTR_REPLACE on a missing name")
	must(t, unix.Setxattr(f, "user.color", []byte("red"), unix.XATTR_REPLACE), "XATTR_REPLACE")
	must(t, unix.Setxattr(f, "user.size", []byte("big"), unix.XATTR_CREATE), "XATTR_CREATE")
	// Both flags: the kernel passes them on, and Linux's file systems fail
	// either way, setting nothing.
	both := unix.XATTR_CREATE | unix.XATTR_REPLACE
	wantErrno(t, unix.Setxattr(f, "user.color", []byte("both"), both), unix.EEXIST, "XATTR_CREATE|XATTR_REPLACE on an existing name")
	wantErrno(t, unix.Setxattr(f, "user.both", []byte("both"), both), unix.ENODATA, "XATTR_CREATE|XATTR_REPLACE on a missing name")
	if got, _ := get(f, "user.color"); string(got) != "red" {
		t.Errorf("after XATTR_REPLACE: %q, want red", got)
	}
	// Empty and large values.
	must(t, unix.Setxattr(f, "user.empty", nil, 0), "empty value")
	big := pattern(7, 65536)
	must(t, unix.Setxattr(f, "user.big", big, 0), "64 KiB value")
	if got, err := get(f, "user.big"); err != nil || !bytes.Equal(got, big) {
		t.Errorf("64 KiB value: %d bytes, %v", len(got), err)
	}
	if got, err := get(f, "user.empty"); err != nil || len(got) != 0 {
		t.Errorf("empty value: %q, %v", got, err)
	}
	// Too small a buffer: ERANGE. Missing name: ENODATA.
	_, err := unix.Getxattr(f, "user.color", make([]byte, 1))
	wantErrno(t, err, unix.ERANGE, "getxattr into a 1-byte buffer")
	_, err = unix.Getxattr(f, "user.none", make([]byte, 10))
	wantErrno(t, err, unix.ENODATA, "getxattr of a missing name")
	wantErrno(t, unix.Removexattr(f, "user.none"), unix.ENODATA, "removexattr of a missing name")
	_, err = unix.Getxattr(v.path("missing"), "user.color", nil)
	wantErrno(t, err, unix.ENOENT, "getxattr of a missing file")
	wantErrno(t, unix.Setxattr(f, "user."+strings.Repeat("n", 251), []byte("v"), 0), unix.ERANGE, "name of 256 bytes")

	list := func(path string) []string {
		n, err := unix.Listxattr(path, nil)
		must(t, err, "listxattr size")
		buf := make([]byte, n)
		n, err = unix.Listxattr(path, buf)
		must(t, err, "listxattr")
		var names []string
		for _, s := range strings.Split(string(buf[:n]), "\x00") {
			if s != "" {
				names = append(names, s)
			}
		}
		slices.Sort(names)
		return names
	}
	want := []string{"user.big", "user.color", "user.empty", "user.size"}
	if got := list(f); !slices.Equal(got, want) {
		t.Errorf("listxattr: %q, want %q", got, want)
	}
	_, err = unix.Listxattr(f, make([]byte, 3))
	wantErrno(t, err, unix.ERANGE, "listxattr into a 3-byte buffer")
	must(t, unix.Removexattr(f, "user.size"), "removexattr")
	want = []string{"user.big", "user.color", "user.empty"}
	if got := list(f); !slices.Equal(got, want) {
		t.Errorf("listxattr after remove: %q, want %q", got, want)
	}
	// Directories carry xattrs too; a new file has none.
	must(t, unix.Setxattr(v.path("dir"), "user.d", []byte("1"), 0), "setxattr on a directory")
	if got := list(v.path("dir")); !slices.Equal(got, []string{"user.d"}) {
		t.Errorf("directory xattrs: %q", got)
	}
	writeFile(t, v.path("plain"), nil)
	if got := list(v.path("plain")); len(got) != 0 {
		t.Errorf("a new file has xattrs %q", got)
	}
	// setxattr changes ctime, not mtime.
	before := lstat(t, f)
	tick()
	must(t, unix.Setxattr(f, "user.color", []byte("green"), 0), "setxattr")
	after := lstat(t, f)
	if tsNano(after.Ctim) <= tsNano(before.Ctim) || tsNano(after.Mtim) != tsNano(before.Mtim) {
		t.Errorf("setxattr: ctime %v -> %v, mtime %v -> %v; want ctime later, mtime unchanged", before.Ctim, after.Ctim, before.Mtim, after.Mtim)
	}
	// user.* xattrs follow the file's write permission, as on ext4:
	// another user may change them only when the mode lets them write.
	must(t, os.Chmod(f, 0o644), "chmod")
	if got := asNobody(t, "setxattr", f, "user.color", "stolen"); got != "EACCES" {
		t.Errorf("setxattr by another user on a 0644 file: %s, want EACCES", got)
	}
	v.remount(t)
	if got := list(f); !slices.Equal(got, want) {
		t.Errorf("after remount: listxattr %q, want %q", got, want)
	}
	if got, _ := get(f, "user.big"); !bytes.Equal(got, big) {
		t.Errorf("after remount: 64 KiB value has %d bytes", len(got))
	}
}

// TestXattrWritePermission: on Linux, user.* xattrs follow the file's
// write permission (xattr_permission in fs/xattr.c), not its ownership.
func TestXattrWritePermission(t *testing.T) {
	v := newVolume(t)
	f := v.path("file")
	writeFile(t, f, nil)
	must(t, os.Chmod(f, 0o666), "chmod")
	if got := asNobody(t, "setxattr", f, "user.other", "shared"); got != "ok" {
		t.Errorf("setxattr by another user on a 0666 file: %s, want ok", got)
	}
	if got := asNobody(t, "removexattr", f, "user.other"); got != "ok" {
		t.Errorf("removexattr by another user on a 0666 file: %s, want ok", got)
	}
}
