package tests

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRmdirIntoTrashRoundTrips: with the trash on, an rmdir through the
// mount is its one move into the trash on the client/server engines (the
// kernel's look-up of the name left it in the client's entry cache), and
// the directories are in the trash afterwards.
func TestRmdirIntoTrashRoundTrips(t *testing.T) {
	v := roundTripVolume(t, "1", "redis", "postgres", "mysql")
	const n = 20
	for i := 0; i < n; i++ {
		must(t, os.MkdirAll(v.path("d", fmt.Sprint("sub", i)), 0o755), "mkdir")
	}
	// The first deletion makes the trash's folders.
	must(t, os.Mkdir(v.path("d", "first"), 0o755), "mkdir first")
	must(t, os.Remove(v.path("d", "first")), "rmdir first")
	lstat(t, v.path("d"))
	before, start := engineRoundTrips(t, v), time.Now()
	for i := 0; i < n; i++ {
		must(t, os.Remove(v.path("d", fmt.Sprint("sub", i))), "rmdir")
		lstat(t, v.path("d"))
	}
	// Heartbeats, the directory statistics' flush and the quotas' refresh
	// may come in between (see TestCreateRoundTrips).
	background := 2 + 2*uint64(time.Since(start)/time.Second+1)
	if got := engineRoundTrips(t, v) - before; got > n+background {
		t.Errorf("%d rmdirs into the trash cost %d round trips, want at most %d and %d in the background", n, got, n, background)
	}
	for i := 0; i < n; i++ {
		trashEntry(t, v, fmt.Sprint("sub", i))
	}
}

// TestRmdirIntoTrashNotEmpty: a directory another mount has just put an
// entry in is not empty for an rmdir through this mount, although this
// mount's caches still hold it empty: ENOTEMPTY, and the directory and
// its entry stay where they are, out of the trash. Once the entry is
// gone, the rmdir moves the directory into the trash.
func TestRmdirIntoTrashNotEmpty(t *testing.T) {
	needMount(t)
	v := formatVolume(t, "--trash-days", "1")
	v.mount(t, "--attr-cache", "1h", "--entry-cache", "1h", "--dir-entry-cache", "1h")
	other := filepath.Join(tempDir(t), "other")
	must(t, os.Mkdir(other, 0o755), "mkdir "+other)
	v.mountAt(t, other)
	// The first deletion makes the trash's folders: this mount's kernel
	// must not hold ".trash" as missing when the test looks in it.
	must(t, os.Mkdir(v.path("first"), 0o755), "mkdir first")
	must(t, os.Remove(v.path("first")), "rmdir first")
	for _, entry := range []struct {
		kind string
		make func(path string) error
	}{
		{"file", func(p string) error { return os.WriteFile(p, nil, 0o644) }},
		{"directory", func(p string) error { return os.Mkdir(p, 0o755) }},
	} {
		d := "with-" + entry.kind
		must(t, os.Mkdir(v.path(d), 0o755), "mkdir "+d)
		if es, err := os.ReadDir(v.path(d)); err != nil || len(es) != 0 {
			t.Fatalf("%s lists %v, %v; want nothing", d, es, err)
		}
		must(t, entry.make(filepath.Join(other, d, "x")), "make the other mount's entry in "+d)
		wantErrno(t, os.Remove(v.path(d)), syscall.ENOTEMPTY, "rmdir of "+d+" after the other mount put an entry in it")
		if _, err := os.Lstat(filepath.Join(other, d, "x")); err != nil {
			t.Errorf("after the refused rmdir, the other mount finds no %s/x: %v", d, err)
		}
		if name, ok := trashHolds(t, v, d); ok {
			t.Errorf("after the refused rmdir, the trash holds %s", name)
		}
		must(t, os.RemoveAll(filepath.Join(other, d, "x")), "remove "+d+"/x")
		must(t, os.Remove(v.path(d)), "rmdir of "+d+" once empty again")
		if _, ok := trashHolds(t, v, d); !ok {
			t.Errorf("the trash does not hold %s after its rmdir", d)
		}
	}
}

// trashHolds reports whether the trash, read through v's mount, holds an
// entry of the directory named name, and its path.
func trashHolds(t *testing.T, v *volume, name string) (string, bool) {
	t.Helper()
	hours, err := os.ReadDir(v.path(".trash"))
	if errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	must(t, err, "list .trash")
	for _, h := range hours {
		es, err := os.ReadDir(v.path(".trash", h.Name()))
		must(t, err, "list .trash/"+h.Name())
		for _, e := range es {
			if e.IsDir() && strings.HasSuffix(e.Name(), "-"+name) {
				return filepath.Join(".trash", h.Name(), e.Name()), true
			}
		}
	}
	return "", false
}
