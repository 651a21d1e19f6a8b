package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestParentAttrAfterChanges: after each create, mkdir, link, symlink,
// unlink, rename and rmdir, the directory's attributes this mount answers
// from what the change returned equal those a second mount without caches
// reads from the engine; with the trash on (an unlink or rmdir is a
// rename into it) and off.
func TestParentAttrAfterChanges(t *testing.T) {
	for _, trash := range []string{"1", "0"} {
		t.Run("trash-days="+trash, func(t *testing.T) { parentAttrAfterChanges(t, trash) })
	}
}

func parentAttrAfterChanges(t *testing.T, trashDays string) {
	v := newVolume(t, "--trash-days", trashDays)
	fresh := filepath.Join(tempDir(t), "fresh")
	if err := os.Mkdir(fresh, 0o755); err != nil {
		t.Fatal(err)
	}
	v.mountAt(t, fresh, "--attr-cache", "0", "--entry-cache", "0", "--dir-entry-cache", "0")
	if err := os.Mkdir(v.path("d"), 0o755); err != nil {
		t.Fatal(err)
	}
	d := v.path("d")
	steps := []struct {
		what string
		run  func() error
	}{
		{"mkdir", func() error { return os.Mkdir(filepath.Join(d, "sub"), 0o755) }},
		{"create", func() error { return os.WriteFile(filepath.Join(d, "f"), nil, 0o644) }},
		{"link", func() error { return os.Link(filepath.Join(d, "f"), filepath.Join(d, "g")) }},
		{"symlink", func() error { return os.Symlink("f", filepath.Join(d, "s")) }},
		{"unlink of one of two links", func() error { return os.Remove(filepath.Join(d, "g")) }},
		{"unlink of the last link", func() error { return os.Remove(filepath.Join(d, "f")) }},
		{"second mkdir", func() error { return os.Mkdir(filepath.Join(d, "sub2"), 0o755) }},
		{"rename of a file within the directory", func() error { return os.Rename(filepath.Join(d, "s"), filepath.Join(d, "s2")) }},
		{"rename of a file out of the directory", func() error { return os.Rename(filepath.Join(d, "s2"), v.path("s")) }},
		{"rename of a file into the directory", func() error { return os.Rename(v.path("s"), filepath.Join(d, "s")) }},
		{"rename of a file over another", func() error {
			if err := os.WriteFile(filepath.Join(d, "t"), nil, 0o644); err != nil {
				return err
			}
			return os.Rename(filepath.Join(d, "s"), filepath.Join(d, "t"))
		}},
		{"rename of a directory within the directory", func() error { return os.Rename(filepath.Join(d, "sub"), filepath.Join(d, "sub3")) }},
		{"rename of a directory out of the directory", func() error { return os.Rename(filepath.Join(d, "sub3"), v.path("sub")) }},
		{"rmdir", func() error { return os.Remove(filepath.Join(d, "sub2")) }},
	}
	lstat(t, d) // the directory's attributes are cached from here on
	for _, s := range steps {
		if err := s.run(); err != nil {
			t.Fatalf("%s: %v", s.what, err)
		}
		here, there := lstat(t, d), lstat(t, filepath.Join(fresh, "d"))
		if here.Nlink != there.Nlink || here.Mtim != there.Mtim || here.Ctim != there.Ctim || here.Mode != there.Mode || here.Size != there.Size {
			t.Errorf("after %s: this mount says links %d mtime %v ctime %v, the engine %d %v %v",
				s.what, here.Nlink, here.Mtim, here.Ctim, there.Nlink, there.Mtim, there.Ctim)
		}
	}
}

// roundTripVolume formats a volume with trashDays and mounts it for a
// test that counts engine round trips, on the engines listed (where one
// is one request; elsewhere the test skips): caches that outlive the test,
// so that what it counts does not depend on how fast the machine runs it
// (a cached attribute read again once it expires is one more round
// trip), and no metadata backup (the first one, taken at mount, would
// count its dump's round trips on a slow machine).
func roundTripVolume(t *testing.T, trashDays string, engines ...string) *volume {
	t.Helper()
	if !slices.Contains(engines, engineName()) {
		t.Skipf("a round trip is not one request on %s", engineName())
	}
	needMount(t)
	v := formatVolume(t, "--trash-days", trashDays)
	v.mount(t, "--attr-cache", "1h", "--entry-cache", "1h", "--dir-entry-cache", "1h", "--backup-meta", "0")
	return v
}

// TestCreateRoundTrips: on the client/server engines, creating a file or a
// directory through the mount costs one write and at most one read (the
// kernel's look-up of the new name); the GETATTR of the directory that
// follows is answered from what the create returned. Renaming the file to
// a new name and unlinking it into the trash cost one move each.
func TestCreateRoundTrips(t *testing.T) {
	v := roundTripVolume(t, "1", "redis", "postgres", "mysql")
	roundTrips := func() uint64 { return engineRoundTrips(t, v) }
	if err := os.Mkdir(v.path("d"), 0o755); err != nil {
		t.Fatal(err)
	}
	lstat(t, v.path("d"))
	// The first deletion makes the trash's folders.
	if err := os.WriteFile(v.path("d", "first"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(v.path("d", "first")); err != nil {
		t.Fatal(err)
	}
	const n = 20
	kinds := []struct {
		what   string
		path   string // the name it changes, %d the turn
		create func(path string) error
		each   uint64 // round trips each may cost
	}{
		{"mkdir", "mkdir%d", func(p string) error { return os.Mkdir(p, 0o755) }, 2},
		{"create", "create%d", func(p string) error {
			f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
			if err != nil {
				return err
			}
			return f.Close()
		}, 2},
		// A move to a new name is the move alone: the client knows the
		// name is missing (the kernel's look-up of it and the trash's
		// check for a file to keep cost nothing) and keeps knowing the
		// directory's other names.
		{"rename", "create%d", func(p string) error { return os.Rename(p, p+".moved") }, 1},
		// The kernel knows the names it just created: an unlink into the
		// trash (on by default) is its one move.
		{"unlink", "create%d.moved", os.Remove, 1},
	}
	for _, k := range kinds {
		before, start := roundTrips(), time.Now()
		for i := 0; i < n; i++ {
			if err := k.create(v.path("d", fmt.Sprintf(k.path, i))); err != nil {
				t.Fatal(err)
			}
		}
		// Reading .stats costs nothing; heartbeats may come in between,
		// and each second the directory statistics' flush and (every 3 s)
		// the quotas' refresh, which are not per operation.
		background := 2 + 2*uint64(time.Since(start)/time.Second+1)
		if got := roundTrips() - before; got > k.each*n+background {
			t.Errorf("%d of %s cost %d round trips, want at most %d and %d in the background", n, k.what, got, k.each*n, background)
		}
	}
}

// engineRoundTrips is the round trips v's mount has sent its engine.
func engineRoundTrips(t *testing.T, v *volume) uint64 {
	t.Helper()
	var s struct {
		Engine struct{ RoundTrips uint64 } `json:"engine"`
	}
	if err := json.Unmarshal(readFile(t, v.path(".stats")), &s); err != nil {
		t.Fatal(err)
	}
	return s.Engine.RoundTrips
}

// TestRmdirRoundTrips: with the trash off, an rmdir through the mount is
// its one removal on the client/server engines; the GETATTR of the parent
// that follows is answered from the time the removal returned
// (meta.RmdirAt).
func TestRmdirRoundTrips(t *testing.T) {
	v := roundTripVolume(t, "0", "redis", "postgres", "mysql")
	const n = 20
	for i := 0; i < n; i++ {
		if err := os.MkdirAll(v.path("d", fmt.Sprint(i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	lstat(t, v.path("d"))
	before, start := engineRoundTrips(t, v), time.Now()
	for i := 0; i < n; i++ {
		if err := os.Remove(v.path("d", fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
		lstat(t, v.path("d"))
	}
	// As in TestCreateRoundTrips: heartbeats, the directory statistics'
	// flush and the quotas' refresh may come in between.
	background := 2 + 2*uint64(time.Since(start)/time.Second+1)
	if got := engineRoundTrips(t, v) - before; got > n+background {
		t.Errorf("%d rmdirs cost %d round trips, want at most %d and %d in the background", n, got, n, background)
	}
}
