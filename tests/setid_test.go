package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// tryOnDescriptor runs a helper's "ftruncate PATH" (to 1 byte), "fallocate
// PATH" (100 bytes from 0) or "otrunc PATH" (open with O_TRUNC) through a
// descriptor opened for writing.
func tryOnDescriptor(op, path string) error {
	flags := unix.O_WRONLY
	if op == "otrunc" {
		flags |= unix.O_TRUNC
	}
	fd, err := unix.Open(path, flags, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	switch op {
	case "ftruncate":
		return unix.Ftruncate(fd, 1)
	case "fallocate":
		return unix.Fallocate(fd, 0, 0, 100)
	}
	return nil
}

// setidDirs makes a directory every user may write in, on the volume and
// on the local disk, where each case runs twice: Linux's own answer is the
// reference, and the table says what it was when the test was written.
func setidDirs(t *testing.T, v *volume) (mounted, local string) {
	t.Helper()
	mounted = v.path("setid")
	local = filepath.Join(shareDir, fmt.Sprintf("setid-%s", filepath.Base(t.Name())))
	for _, d := range []string{mounted, local} {
		must(t, os.Mkdir(d, 0o777), "mkdir")
		must(t, os.Chmod(d, 0o777), "chmod")
	}
	t.Cleanup(func() { os.RemoveAll(local) })
	return mounted, local
}

// setidFile makes dir/name with content, owned by uid:gid, with mode.
func setidFile(t *testing.T, dir, name string, uid, gid int, mode uint32) string {
	t.Helper()
	p := filepath.Join(dir, name)
	writeFile(t, p, []byte("hello"))
	must(t, os.Chown(p, uid, gid), "chown")
	must(t, unix.Chmod(p, mode), "chmod")
	return p
}

func modeOf(t *testing.T, path string) uint32 {
	t.Helper()
	return lstat(t, path).Mode & 0o7777
}

// TestSetidNobody writes to, truncates and opens with O_TRUNC, as uid
// 65534 (no CAP_FSETID, no supplementary groups), setuid and setgid files
// owned by root, by 65534 and by 65534 in root's group, and wants the
// modes Linux gives: setuid always goes; setgid goes when group-executable
// or when 65534 is not in the file's group.
func TestSetidNobody(t *testing.T) {
	v := newVolume(t)
	mounted, local := setidDirs(t, v)
	type owner struct {
		name     string
		uid, gid int
	}
	other, self, selfForeign := owner{"root:root", 0, 0}, owner{"65534:65534", 65534, 65534}, owner{"65534:root", 65534, 0}
	cases := []struct {
		op         []string
		owner      owner
		mode, want uint32
	}{
		{[]string{"write", "", "x"}, other, 0o4777, 0o777},
		{[]string{"write", "", "x"}, other, 0o2777, 0o777},
		{[]string{"write", "", "x"}, other, 0o6777, 0o777},
		{[]string{"write", "", "x"}, other, 0o2767, 0o767},
		{[]string{"write", "", "x"}, self, 0o4777, 0o777},
		{[]string{"write", "", "x"}, self, 0o2777, 0o777},
		{[]string{"write", "", "x"}, self, 0o6777, 0o777},
		{[]string{"write", "", "x"}, self, 0o2767, 0o2767},
		{[]string{"write", "", "x"}, self, 0o6767, 0o2767},
		{[]string{"write", "", "x"}, selfForeign, 0o2767, 0o767},
		{[]string{"write", "", "x"}, selfForeign, 0o6777, 0o777},
		{[]string{"truncate", "", "2"}, other, 0o6777, 0o777},
		{[]string{"truncate", "", "2"}, self, 0o6767, 0o2767},
		{[]string{"truncate", "", "5"}, other, 0o2767, 0o767}, // the same length
		{[]string{"ftruncate", ""}, other, 0o6777, 0o777},
		{[]string{"ftruncate", ""}, selfForeign, 0o6767, 0o767},
		{[]string{"otrunc", ""}, other, 0o6777, 0o777},
		{[]string{"otrunc", ""}, self, 0o6767, 0o2767},
		{[]string{"fallocate", ""}, other, 0o6776, 0o776},
		{[]string{"fallocate", ""}, self, 0o6767, 0o2767},
	}
	for i, c := range cases {
		what := fmt.Sprintf("%s by 65534 of a %04o file owned by %s", c.op[0], c.mode, c.owner.name)
		for _, dir := range []string{mounted, local} {
			p := setidFile(t, dir, fmt.Sprintf("f%d", i), c.owner.uid, c.owner.gid, c.mode)
			args := append([]string{c.op[0], p}, c.op[2:]...)
			if got := asNobody(t, args...); got != "ok" {
				t.Errorf("%s in %s: %s", what, dir, got)
				continue
			}
			if got := modeOf(t, p); got != c.want {
				t.Errorf("%s in %s: mode %04o, want %04o", what, dir, got, c.want)
			}
		}
	}
	// A write of nothing changes nothing.
	for _, dir := range []string{mounted, local} {
		p := setidFile(t, dir, "empty-write", 0, 0, 0o6777)
		if got := asNobody(t, "write", p, ""); got != "ok" || modeOf(t, p) != 0o6777 {
			t.Errorf("empty write by 65534 in %s: %s, mode %04o, want ok and 6777", dir, got, modeOf(t, p))
		}
	}
}

// TestSetidRoot: root's writes and truncates keep the bits; root's chown
// clears setuid always, even to the same ids or -1/-1, and setgid when
// group-executable; the owner's chgrp out of a group it is not in clears a
// setgid that is not.
func TestSetidRoot(t *testing.T) {
	v := newVolume(t)
	mounted, local := setidDirs(t, v)
	for _, dir := range []string{mounted, local} {
		for i, mode := range []uint32{0o6777, 0o2767} {
			p := setidFile(t, dir, fmt.Sprintf("root%d", i), 65534, 65534, mode)
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			must(t, err, "open")
			_, err = f.WriteAt([]byte("x"), 0)
			must(t, err, "write")
			must(t, f.Truncate(2), "ftruncate")
			must(t, f.Close(), "close")
			must(t, os.Truncate(p, 1), "truncate")
			f, err = os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
			must(t, err, "open O_TRUNC")
			must(t, f.Close(), "close")
			if got := modeOf(t, p); got != mode {
				t.Errorf("write and truncates by root of a %04o file in %s: mode %04o", mode, dir, got)
			}
		}
		chowns := []struct{ uid, gid int }{{65534, 65534}, {0, 0}, {-1, -1}}
		wants := map[uint32]uint32{0o4777: 0o777, 0o2777: 0o777, 0o6777: 0o777, 0o2767: 0o2767, 0o6767: 0o2767}
		for i, ids := range chowns {
			for mode, want := range wants {
				p := setidFile(t, dir, fmt.Sprintf("chown%d-%o", i, mode), 0, 0, mode)
				must(t, os.Chown(p, ids.uid, ids.gid), "chown")
				if got := modeOf(t, p); got != want {
					t.Errorf("chown %d:%d by root of a %04o file in %s: mode %04o, want %04o", ids.uid, ids.gid, mode, dir, got, want)
				}
			}
		}
		owned := []struct {
			gid, newGid int
			mode, want  uint32
		}{
			{0, 65534, 0o2767, 0o767},
			{65534, 65534, 0o6767, 0o2767},
			{65534, -1, 0o6777, 0o777}, // chown(-1, -1)
		}
		for i, c := range owned {
			p := setidFile(t, dir, fmt.Sprintf("chgrp%d", i), 65534, c.gid, c.mode)
			if got := asNobody(t, "chown", p, "-1", fmt.Sprint(c.newGid)); got != "ok" {
				t.Errorf("chgrp %d by the owner in %s: %s", c.newGid, dir, got)
				continue
			}
			if got := modeOf(t, p); got != c.want {
				t.Errorf("chgrp %d by the owner of a %04o file in group %d in %s: mode %04o, want %04o", c.newGid, c.mode, c.gid, dir, got, c.want)
			}
		}
	}
}

// TestSetidAtWrite: the bits go at the write(2) itself, durably, while the
// written data may still be buffered: a stat through the same mount, and
// through a second mount of the volume (another client), sees them gone
// before the writer closes its descriptor.
func TestSetidAtWrite(t *testing.T) {
	v := newVolume(t)
	p := v.path("suid")
	writeFile(t, p, []byte("hello"))
	must(t, unix.Chmod(p, 0o6777), "chmod")
	var there string
	if !singleProcess() {
		there = filepath.Join(tempDir(t), "mnt2")
		must(t, os.Mkdir(there, 0o755), "mkdir")
		v.mountAt(t, there)
	}
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	must(t, err, "open")
	defer f.Close()
	must(t, writeAsNobody(f, []byte("x")), "write with the file-system identity of uid 65534")
	if got := modeOf(t, p); got != 0o777 {
		t.Errorf("mode after a write by 65534, before close: %04o, want 0777", got)
	}
	if there != "" {
		if got := modeOf(t, filepath.Join(there, "suid")); got != 0o777 {
			t.Errorf("mode on a second mount after a write by 65534, before close: %04o, want 0777", got)
		}
	}
}

// writeAsNobody writes p through f from a thread whose file-system
// identity is uid and gid 65534, which drops CAP_FSETID as a real user
// would lack it. The thread gets root's identity back (and with it the
// capability) before it serves other goroutines. It must not end
// instead: a server a test started from that thread dies with it
// (Pdeathsig).
func writeAsNobody(f *os.File, p []byte) error {
	done := make(chan error)
	go func() {
		runtime.LockOSThread()
		unix.Setfsgid(65534)
		unix.Setfsuid(65534)
		_, err := f.Write(p)
		unix.Setfsuid(0)
		unix.Setfsgid(0)
		uid, _ := unix.SetfsuidRetUid(-1) // -1 changes nothing and tells the current one
		gid, _ := unix.SetfsgidRetGid(-1)
		if uid == 0 && gid == 0 {
			runtime.UnlockOSThread()
		} // else the thread ends with the goroutine, as it must
		done <- err
	}()
	return <-done
}
