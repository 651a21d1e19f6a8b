package tests

import (
	"fmt"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestFlockBetweenProcesses takes whole-file locks in this process and in a
// child process on the same mount.
func TestFlockBetweenProcesses(t *testing.T) {
	v := newVolume(t)
	path := v.path("locked")
	writeFile(t, path, []byte("x"))
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	must(t, err, "open")
	defer f.Close()
	fd := int(f.Fd())

	must(t, unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB), "flock exclusive")
	if h := startHolder(t, "flock", path, "ex"); h.first != "EAGAIN" {
		t.Errorf("child flock while the parent holds it: %s, want EAGAIN", h.first)
	}
	if h := startHolder(t, "flock", path, "sh"); h.first != "EAGAIN" {
		t.Errorf("child shared flock while the parent holds an exclusive one: %s, want EAGAIN", h.first)
	}
	must(t, unix.Flock(fd, unix.LOCK_UN), "unlock")

	h := startHolder(t, "flock", path, "ex")
	if h.first != "ok" {
		t.Fatalf("child flock after the parent unlocked: %s, want ok", h.first)
	}
	wantErrno(t, unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB), unix.EAGAIN, "parent flock while the child holds it")
	h.release()
	if !eventually(5*time.Second, func() bool { return unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) == nil }) {
		t.Errorf("the child's lock was not released when it exited")
	}
	must(t, unix.Flock(fd, unix.LOCK_UN), "unlock")

	// Shared locks coexist; an exclusive one waits for all of them.
	must(t, unix.Flock(fd, unix.LOCK_SH|unix.LOCK_NB), "flock shared")
	sh := startHolder(t, "flock", path, "sh")
	if sh.first != "ok" {
		t.Errorf("second shared flock: %s, want ok", sh.first)
	}
	if h := startHolder(t, "flock", path, "ex"); h.first != "EAGAIN" {
		t.Errorf("exclusive flock under two shared ones: %s, want EAGAIN", h.first)
	}
	sh.release()
	must(t, unix.Flock(fd, unix.LOCK_UN), "unlock")
	if h := startHolder(t, "flock", path, "ex"); h.first != "ok" {
		t.Errorf("exclusive flock after the shared ones went: %s, want ok", h.first)
	}
}

// TestFcntlLocksBetweenProcesses takes POSIX byte-range locks in two
// processes and checks conflicts, F_GETLK and release on close.
func TestFcntlLocksBetweenProcesses(t *testing.T) {
	v := newVolume(t)
	path := v.path("ranges")
	writeFile(t, path, make([]byte, 1000))
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	must(t, err, "open")
	defer f.Close()
	setlk := func(typ int16, start, length int64) error {
		lk := unix.Flock_t{Type: typ, Whence: 0, Start: start, Len: length}
		return unix.FcntlFlock(f.Fd(), unix.F_SETLK, &lk)
	}

	must(t, setlk(unix.F_WRLCK, 0, 100), "write lock [0,100)")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"w", "50", "10"}, "EAGAIN"}, // overlaps
		{[]string{"r", "99", "1"}, "EAGAIN"},  // last byte
		{[]string{"w", "100", "10"}, "ok"},    // just after
		{[]string{"r", "500", "0"}, "ok"},     // to the end, from past the lock
		{[]string{"w", "0", "0"}, "EAGAIN"},   // the whole file
	}
	for _, c := range cases {
		h := startHolder(t, append([]string{"fcntl", path}, c.args...)...)
		if h.first != c.want {
			t.Errorf("child fcntl %v while the parent holds w[0,100): %s, want %s", c.args, h.first, c.want)
		}
		h.release()
	}
	want := fmt.Sprintf("w 0 100 %d", os.Getpid())
	if got := helper(t, nil, "getlk", path, "w", "10", "5"); got != want {
		t.Errorf("F_GETLK from the child: %q, want %q", got, want)
	}
	if got := helper(t, nil, "getlk", path, "w", "200", "5"); got != "unlck" {
		t.Errorf("F_GETLK on a free range: %q, want unlck", got)
	}

	// Unlocking the middle splits the lock.
	must(t, setlk(unix.F_UNLCK, 40, 20), "unlock [40,60)")
	mid := startHolder(t, "fcntl", path, "w", "45", "10")
	if mid.first != "ok" {
		t.Errorf("child lock in the unlocked middle: %s, want ok", mid.first)
	}
	mid.release()
	if h := startHolder(t, "fcntl", path, "w", "30", "20"); h.first != "EAGAIN" {
		t.Errorf("child lock over the remaining left part: %s, want EAGAIN", h.first)
	}
	if h := startHolder(t, "fcntl", path, "w", "60", "40"); h.first != "EAGAIN" {
		t.Errorf("child lock over the remaining right part: %s, want EAGAIN", h.first)
	}
	// Read locks share.
	must(t, setlk(unix.F_UNLCK, 0, 0), "unlock all")
	must(t, setlk(unix.F_RDLCK, 0, 100), "read lock")
	rd := startHolder(t, "fcntl", path, "r", "0", "100")
	if rd.first != "ok" {
		t.Errorf("child read lock beside a read lock: %s, want ok", rd.first)
	}
	wantErrno(t, setlk(unix.F_WRLCK, 0, 10), unix.EAGAIN, "parent upgrade while the child holds a read lock")
	rd.release()
	if !eventually(5*time.Second, func() bool { return setlk(unix.F_WRLCK, 0, 10) == nil }) {
		t.Errorf("parent upgrade after the child's read lock went: still refused")
	}

	// A child's locks go when it exits, even killed.
	path2 := v.path("killed")
	writeFile(t, path2, make([]byte, 10))
	h := startHolder(t, "fcntl", path2, "w", "0", "0")
	if h.first != "ok" {
		t.Fatalf("child lock: %s", h.first)
	}
	must(t, h.cmd.Process.Kill(), "kill child")
	h.release()
	g, err := os.OpenFile(path2, os.O_RDWR, 0)
	must(t, err, "open")
	defer g.Close()
	lk := unix.Flock_t{Type: unix.F_WRLCK}
	if !eventually(5*time.Second, func() bool { return unix.FcntlFlock(g.Fd(), unix.F_SETLK, &lk) == nil }) {
		t.Errorf("a killed child's lock was never released")
	}
	// Closing any descriptor of the file drops this process's locks.
	other, err := os.Open(path2)
	must(t, err, "open again")
	other.Close()
	after := startHolder(t, "fcntl", path2, "w", "0", "0")
	if after.first != "ok" {
		t.Errorf("child lock after the parent closed a descriptor: %s, want ok", after.first)
	}
	after.release()
}
