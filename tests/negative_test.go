package tests

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// engineCalls is how many calls of each kind (meta.lookup, …) the mount
// whose .stats is at statsPath sent its engine.
func engineCalls(t *testing.T, statsPath string) map[string]uint64 {
	t.Helper()
	var s struct {
		Ops map[string]struct{ Count uint64 } `json:"ops"`
	}
	if err := json.Unmarshal(readFile(t, statsPath), &s); err != nil {
		t.Fatal(err)
	}
	calls := map[string]uint64{}
	for op, o := range s.Ops {
		calls[op] = o.Count
	}
	return calls
}

// engineLookups is how many look-ups the mount sent its engine.
func engineLookups(t *testing.T, statsPath string) uint64 {
	t.Helper()
	return engineCalls(t, statsPath)["meta.lookup"]
}

func missing(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("lstat %s: %v, want it missing", path, err)
	}
}

// TestNegativeLookups: a name the mount found missing, or removed or
// moved away itself, or a name of a directory it just made, is kept as
// missing for the entry cache duration, so
// asking again, and the kernel's look-up before a create or mkdir of it,
// cost the engine nothing; the create itself makes it visible at once.
// With the entry cache off, a name another mount creates is visible at
// once.
func TestNegativeLookups(t *testing.T) {
	v := newVolume(t)
	cached := filepath.Join(tempDir(t), "cached")
	if err := os.Mkdir(cached, 0o755); err != nil {
		t.Fatal(err)
	}
	// An hour: the test must not depend on how fast it runs.
	v.mountAt(t, cached, "--entry-cache", "1h", "--dir-entry-cache", "1h", "--attr-cache", "1h", "--backup-meta", "0")
	stats := filepath.Join(cached, ".stats")
	before := engineLookups(t, stats)
	for _, name := range []string{"f", "d"} {
		missing(t, filepath.Join(cached, name))
		missing(t, filepath.Join(cached, name))
	}
	if err := os.WriteFile(filepath.Join(cached, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(cached, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	lstat(t, filepath.Join(cached, "f"))
	lstat(t, filepath.Join(cached, "d"))
	if n := engineLookups(t, stats) - before; n != 2 {
		t.Errorf("two names looked up twice each, then created: %d look-ups reached the engine, want 2", n)
	}

	// Names this mount removed or moved away are kept as missing too:
	// the look-ups the kernel sends again after the change, and before a
	// create of the same name, cost the engine nothing.
	if err := os.Rename(filepath.Join(cached, "f"), filepath.Join(cached, "g")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(cached, "g")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(cached, "d")); err != nil {
		t.Fatal(err)
	}
	before = engineLookups(t, stats)
	for _, name := range []string{"f", "g", "d"} {
		missing(t, filepath.Join(cached, name))
	}
	if err := os.Mkdir(filepath.Join(cached, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if n := engineLookups(t, stats) - before; n != 0 {
		t.Errorf("names this mount removed or renamed away, looked up and made again: %d look-ups reached the engine, want 0", n)
	}

	// So are the names of a directory this mount just made.
	if err := os.Mkdir(filepath.Join(cached, "new"), 0o755); err != nil {
		t.Fatal(err)
	}
	before = engineLookups(t, stats)
	missing(t, filepath.Join(cached, "new", "x"))
	if err := os.WriteFile(filepath.Join(cached, "new", "y"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(cached, "new", "z"), 0o755); err != nil {
		t.Fatal(err)
	}
	lstat(t, filepath.Join(cached, "new", "y"))
	if n := engineLookups(t, stats) - before; n != 0 {
		t.Errorf("names of a directory this mount just made: %d look-ups reached the engine, want 0", n)
	}

	uncached := filepath.Join(tempDir(t), "uncached")
	if err := os.Mkdir(uncached, 0o755); err != nil {
		t.Fatal(err)
	}
	v.mountAt(t, uncached, "--entry-cache", "0", "--dir-entry-cache", "0")
	missing(t, filepath.Join(uncached, "g"))
	if err := os.WriteFile(v.path("g"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	lstat(t, filepath.Join(uncached, "g"))
}

// engineRequests is how many look-ups and listings the mount sent its
// engine.
func engineRequests(t *testing.T, statsPath string) uint64 {
	t.Helper()
	calls := engineCalls(t, statsPath)
	return calls["meta.lookup"] + calls["meta.readdir"]
}

// TestCreatesOutlastTheWindow: a phase of creates in a directory outlasts
// the time its names are known missing many times over; the kernel's
// look-up before each create still costs the engine nothing, but for a
// few look-ups and a listing of the directory each time the window ends.
// That holds in a directory this mount made and in one another mount
// made. A name the other mount creates there meanwhile shows here within
// the entry cache duration.
func TestCreatesOutlastTheWindow(t *testing.T) {
	const ttl = 300 * time.Millisecond
	v := newVolume(t)
	here := v.mountAt(t, tempDir(t), "--entry-cache", ttl.String(), "--dir-entry-cache", ttl.String(), "--attr-cache", "1h", "--backup-meta", "0").Dir
	there := v.mountAt(t, tempDir(t), "--backup-meta", "0").Dir
	for dir, maker := range map[string]string{"made-here": here, "made-there": there} {
		if err := os.Mkdir(filepath.Join(maker, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		stats := filepath.Join(here, ".stats")
		before := engineRequests(t, stats)
		start := time.Now()
		creates := 0
		var other time.Time // when the other mount made dir/other
		for time.Since(start) < 5*ttl {
			if creates == 20 {
				if err := os.WriteFile(filepath.Join(there, dir, "other"), nil, 0o644); err != nil {
					t.Fatal(err)
				}
				other = time.Now()
			}
			// It shows here within the entry cache duration (and a
			// margin for this loop's own create).
			if !other.IsZero() && time.Since(other) > ttl+ttl/3 {
				lstat(t, filepath.Join(here, dir, "other"))
				other = time.Time{}
			}
			f, err := os.OpenFile(filepath.Join(here, dir, fmt.Sprintf("f%d", creates)), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			f.Close()
			creates++
		}
		windows := int(time.Since(start)/ttl) + 1
		n := engineRequests(t, stats) - before
		t.Logf("%s: %d creates in %d windows: %d look-ups and listings", dir, creates, windows, n)
		if limit := uint64(6*windows + creates/20); n > limit {
			t.Errorf("%s: %d creates over %d entry cache windows sent %d look-ups and listings to the engine, want at most %d", dir, creates, windows, n, limit)
		}
		if !other.IsZero() {
			t.Fatalf("%s: the loop ended before %s/other was looked for", dir, dir)
		}
	}
}

// TestCreateOfANameMadeElsewhere: open(O_CREAT) without O_EXCL of a name
// this mount holds as missing (every name of a directory it just made)
// that another mount made meanwhile opens that file, as on a local file
// system; with O_EXCL it fails with EEXIST.
func TestCreateOfANameMadeElsewhere(t *testing.T) {
	v := newVolume(t)
	// Names held missing for an hour: the test does not depend on speed.
	here := v.mountAt(t, tempDir(t), "--entry-cache", "1h", "--dir-entry-cache", "1h", "--backup-meta", "0").Dir
	there := v.mountAt(t, tempDir(t), "--backup-meta", "0").Dir
	if err := os.Mkdir(filepath.Join(here, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(there, "d", "log"), []byte("first\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(there, "d", "excl"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(here, "d", "log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatalf("open(O_CREAT|O_APPEND) of a name another mount made: %v", err)
	}
	if _, err := f.WriteString("second\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(there, "d", "log")); err != nil || string(got) != "first\nsecond\n" {
		t.Errorf("the file after an append from this mount: %q (%v), want %q", got, err, "first\nsecond\n")
	}
	_, err = os.OpenFile(filepath.Join(here, "d", "excl"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if !errors.Is(err, fs.ErrExist) {
		t.Errorf("open(O_CREAT|O_EXCL) of a name another mount made: %v, want EEXIST", err)
	}
}

// TestStatsOfNamesThatExist: after the entry cache duration the kernel
// looks every name up again before a stat; in a directory another mount
// filled, the look-ups that find their names soon cost as much as a
// listing with attributes, which answers the rest of them.
func TestStatsOfNamesThatExist(t *testing.T) {
	const ttl, files = 300 * time.Millisecond, 200
	v := newVolume(t)
	here := v.mountAt(t, tempDir(t), "--entry-cache", ttl.String(), "--dir-entry-cache", ttl.String(), "--attr-cache", ttl.String(), "--backup-meta", "0").Dir
	there := v.mountAt(t, tempDir(t), "--backup-meta", "0").Dir
	if err := os.Mkdir(filepath.Join(there, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range files {
		if err := os.WriteFile(filepath.Join(there, "d", fmt.Sprintf("f%d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stats := filepath.Join(here, ".stats")
	for pass := range 2 {
		time.Sleep(ttl + ttl/3) // every name of d expired here
		before := engineRequests(t, stats)
		start := time.Now()
		for i := range files {
			lstat(t, filepath.Join(here, "d", fmt.Sprintf("f%d", i)))
		}
		windows := int(time.Since(start)/ttl) + 1
		n := engineRequests(t, stats) - before
		t.Logf("pass %d: %d stats in %d windows: %d look-ups and listings", pass, files, windows, n)
		// A window: 4 look-ups and a listing that stops short, then
		// 8 more and one that reads all 200, or 200/16 and one listing.
		if limit := uint64(16*windows + 4); n > limit {
			t.Errorf("pass %d: %d stats of names another mount made sent %d look-ups and listings to the engine, want at most %d", pass, files, n, limit)
		}
	}
}
