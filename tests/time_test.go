package tests

import (
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// times is the (atime, mtime, ctime) of a file in nanoseconds.
type times struct{ a, m, c int64 }

func timesOf(t testing.TB, path string) times {
	t.Helper()
	st := lstat(t, path)
	return times{tsNano(st.Atim), tsNano(st.Mtim), tsNano(st.Ctim)}
}

// TestTimestamps checks that every operation moves mtime and ctime exactly
// as Linux does: content changes move both, attribute changes only ctime,
// and a directory's times move when its entries change.
func TestTimestamps(t *testing.T) {
	v := newVolume(t)
	p := v.path
	must(t, os.Mkdir(p("d"), 0o755), "mkdir")

	// Creating a file sets its three times to now and moves the parent's
	// mtime and ctime.
	start := time.Now().UnixNano()
	dirBefore := timesOf(t, p("d"))
	tick()
	writeFile(t, p("d", "f"), nil)
	f := timesOf(t, p("d", "f"))
	now := time.Now().UnixNano()
	for _, x := range []int64{f.a, f.m, f.c} {
		if x < start-int64(time.Second) || x > now+int64(time.Second) {
			t.Errorf("new file times %+v not near now (%d)", f, now)
			break
		}
	}
	if d := timesOf(t, p("d")); d.m <= dirBefore.m || d.c <= dirBefore.c {
		t.Errorf("create in a directory: its times %+v -> %+v, want mtime and ctime later", dirBefore, d)
	}

	step := func(what string, op func(), path string, wantM, wantC bool) {
		t.Helper()
		before := timesOf(t, path)
		tick()
		op()
		after := timesOf(t, path)
		if (after.m != before.m) != wantM || (after.c != before.c) != wantC {
			t.Errorf("%s: mtime %d -> %d, ctime %d -> %d; want mtime changed %v, ctime changed %v",
				what, before.m, after.m, before.c, after.c, wantM, wantC)
		}
		if after.m < before.m || after.c < before.c {
			t.Errorf("%s: a time went backwards: %+v -> %+v", what, before, after)
		}
	}
	file := p("d", "f")
	step("write", func() { writeFile(t, file, []byte("hello")) }, file, true, true)
	step("truncate", func() { must(t, os.Truncate(file, 2), "truncate") }, file, true, true)
	step("chmod", func() { must(t, os.Chmod(file, 0o600), "chmod") }, file, false, true)
	step("chown", func() { must(t, os.Chown(file, 1000, 1000), "chown") }, file, false, true)
	step("setxattr", func() { must(t, unix.Setxattr(file, "user.a", []byte("1"), 0), "setxattr") }, file, false, true)
	step("link", func() { must(t, os.Link(file, p("d", "g")), "link") }, file, false, true)
	step("unlink of another name", func() { must(t, os.Remove(p("d", "g")), "unlink") }, file, false, true)
	step("rename in a directory", func() { must(t, unix.Rename(file, p("d", "f2")), "rename") }, p("d"), true, true)
	file = p("d", "f2")
	// The moved inode's ctime moves, its mtime does not.
	before := timesOf(t, file)
	tick()
	must(t, unix.Rename(file, p("d", "f3")), "rename")
	file = p("d", "f3")
	if got := timesOf(t, file); got.c == before.c || got.m != before.m {
		t.Errorf("renamed file: %+v -> %+v, want ctime changed, mtime kept", before, got)
	}
	step("mkdir in a directory", func() { must(t, os.Mkdir(p("d", "sub"), 0o755), "mkdir") }, p("d"), true, true)
	step("rmdir in a directory", func() { must(t, os.Remove(p("d", "sub")), "rmdir") }, p("d"), true, true)
	step("symlink in a directory", func() { must(t, os.Symlink("x", p("d", "s")), "symlink") }, p("d"), true, true)
	step("read", func() { readFile(t, file) }, file, false, false)
	step("stat", func() { lstat(t, file) }, file, false, false)
	step("open and close", func() {
		g, err := os.OpenFile(file, os.O_RDWR, 0)
		must(t, err, "open")
		g.Close()
	}, file, false, false)

	// utimensat with explicit times sets them; ctime becomes now.
	at := time.Date(2001, 2, 3, 4, 5, 6, 789, time.UTC)
	mt := time.Date(2002, 3, 4, 5, 6, 7, 891, time.UTC)
	before = timesOf(t, file)
	tick()
	must(t, os.Chtimes(file, at, mt), "utimensat")
	got := timesOf(t, file)
	if got.a != at.UnixNano() || got.m != mt.UnixNano() || got.c <= before.c {
		t.Errorf("utimensat: %+v, want atime %d, mtime %d and ctime after %d", got, at.UnixNano(), mt.UnixNano(), before.c)
	}
	// UTIME_NOW, and UTIME_OMIT for one of them.
	tick()
	ts := []unix.Timespec{{Nsec: unix.UTIME_OMIT}, {Nsec: unix.UTIME_NOW}}
	must(t, unix.UtimesNanoAt(unix.AT_FDCWD, file, ts, 0), "utimensat UTIME_NOW")
	got2 := timesOf(t, file)
	if got2.a != got.a || got2.m <= got.m || got2.m < time.Now().Add(-time.Minute).UnixNano() {
		t.Errorf("UTIME_OMIT/UTIME_NOW: %+v -> %+v, want atime kept and mtime now", got, got2)
	}
	// A symlink's own times (AT_SYMLINK_NOFOLLOW) leave its target alone.
	target := timesOf(t, file)
	must(t, os.Symlink(file, p("link")), "symlink")
	must(t, unix.UtimesNanoAt(unix.AT_FDCWD, p("link"), []unix.Timespec{unix.NsecToTimespec(1e9), unix.NsecToTimespec(2e9)}, unix.AT_SYMLINK_NOFOLLOW), "lutimes")
	if l := timesOf(t, p("link")); l.m != 2e9 {
		t.Errorf("symlink mtime %d, want %d", l.m, int64(2e9))
	}
	if got := timesOf(t, file); got.m != target.m {
		t.Errorf("lutimes on a symlink changed its target's mtime")
	}

	// Another user: UTIME_NOW needs write permission, explicit times need
	// ownership.
	writeFile(t, p("shared"), nil)
	must(t, os.Chmod(p("shared"), 0o666), "chmod")
	if got := asNobody(t, "utimens-now", p("shared")); got != "ok" {
		t.Errorf("UTIME_NOW by another user with write permission: %s, want ok", got)
	}
	if got := asNobody(t, "utimens", p("shared")); got != "EPERM" {
		t.Errorf("explicit times by another user: %s, want EPERM", got)
	}
	must(t, os.Chmod(p("shared"), 0o644), "chmod")
	if got := asNobody(t, "utimens-now", p("shared")); got != "EACCES" {
		t.Errorf("UTIME_NOW by another user without write permission: %s, want EACCES", got)
	}

	// Times survive a remount to the nanosecond.
	want := timesOf(t, file)
	v.remount(t)
	if got := timesOf(t, file); got.m != want.m || got.c != want.c {
		t.Errorf("after remount: %+v, want %+v", got, want)
	}
}
