// Package testenv starts the real things cairn's tests run against — database
// servers on loopback with throw-away data directories, FUSE mounts — and
// decides what a missing binary means: a skip on a developer's machine, a
// failure in CI (CI=true).
package testenv

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// InCI reports whether the tests run in CI, where nothing may be skipped for
// want of a binary.
func InCI() bool { return os.Getenv("CI") == "true" }

// Binary finds the first of names on PATH or in the extra directories, or
// skips the test (fails it in CI) with a message naming what is missing.
func Binary(t testing.TB, names []string, dirs ...string) string {
	t.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
		for _, d := range dirs {
			matches, _ := filepath.Glob(filepath.Join(d, n))
			for _, m := range matches {
				if st, err := os.Stat(m); err == nil && !st.IsDir() {
					return m
				}
			}
		}
	}
	Missing(t, "none of %v is installed (run scripts/setup.sh)", names)
	return ""
}

// Missing skips the test, or fails it in CI, because something it needs is
// not on this machine.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if InCI() {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

// FreePort returns a TCP port on 127.0.0.1 that nothing listens on now
// and that no earlier call of this process returned: the kernel may hand
// out a port again as soon as the probe's listener closes, and two
// members of one etcd cluster were once given the same one.
func FreePort(t testing.TB) int {
	t.Helper()
	givenMu.Lock()
	defer givenMu.Unlock()
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("find a free port: %v", err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if !given[port] {
			given[port] = true
			return port
		}
	}
	t.Fatalf("find a free port: 100 tries gave ports already handed out")
	return 0
}

// given holds the ports FreePort returned.
var (
	givenMu sync.Mutex
	given   = map[int]bool{}
)
