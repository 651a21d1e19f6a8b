package tests

import (
	"os"
	"strconv"
	"testing"
)

// TestSummaryStatistics: through a real mount, after a mix of creates,
// writes, truncates, renames across directories, hard links and
// unlinks, 'cairn summary' read from the directory statistics gives the
// space, files and directories of 'cairn summary --count' (a full walk),
// for the volume and for a subtree, and says which it used.
func TestSummaryStatistics(t *testing.T) {
	v := newVolume(t)
	for _, dir := range []string{"a/b/c", "d/e"} {
		must(t, os.MkdirAll(v.path(dir), 0o755), "mkdir "+dir)
	}
	writeFile(t, v.path("a", "f1"), pattern(1, 10000))
	writeFile(t, v.path("a", "b", "f2"), pattern(2, 5000))
	writeFile(t, v.path("a", "b", "c", "f3"), pattern(3, 1<<20))
	writeFile(t, v.path("d", "f4"), pattern(4, 300))
	writeFile(t, v.path("d", "e", "f5"), pattern(5, 7000))
	for i := range 20 {
		writeFile(t, v.path("d", "e", "n"+strconv.Itoa(i)), pattern(uint64(10+i), i*3000))
	}
	must(t, os.Truncate(v.path("a", "b", "f2"), 20000), "truncate up")
	must(t, os.Truncate(v.path("a", "b", "c", "f3"), 4097), "truncate down")
	must(t, os.Rename(v.path("a", "b", "c"), v.path("d", "c")), "rename a directory across")
	must(t, os.Rename(v.path("d", "f4"), v.path("a", "f4")), "rename a file across")
	f, err := os.OpenFile(v.path("a", "f1"), os.O_WRONLY|os.O_APPEND, 0)
	must(t, err, "open a/f1")
	_, err = f.Write(pattern(6, 9000))
	must(t, err, "append to a/f1")
	must(t, f.Close(), "close a/f1")
	// Linked after it grew: a write to a file of several links counts
	// in one of its directories only (see README, Directory statistics).
	must(t, os.Link(v.path("a", "f1"), v.path("d", "e", "hard")), "link")
	must(t, os.Remove(v.path("d", "e", "f5")), "unlink")
	must(t, os.Symlink("a/f1", v.path("s")), "symlink")

	for _, path := range []string{v.dir, v.path("d")} {
		var fromStats, counted summaryJSON
		v.inspectOK(t, &fromStats, "summary", path)
		v.inspectOK(t, &counted, "summary", path, "--count")
		if fromStats.Source != "statistics" || fromStats.Counted != 0 || counted.Source != "count" {
			t.Errorf("summary of %s: sources %q (%d directories counted) and %q, want statistics (none counted) and count", path, fromStats.Source, fromStats.Counted, counted.Source)
		}
		if fromStats.Space != counted.Space || fromStats.Files != counted.Files || fromStats.Directories != counted.Directories || counted.Files == 0 {
			t.Errorf("summary of %s from the statistics: %d bytes of space, %d files, %d directories; counted: %d, %d, %d",
				path, fromStats.Space, fromStats.Files, fromStats.Directories, counted.Space, counted.Files, counted.Directories)
		}
		if len(fromStats.Biggest) != len(counted.Biggest) {
			t.Fatalf("summary of %s: %d biggest entries from the statistics, %d counted", path, len(fromStats.Biggest), len(counted.Biggest))
		}
		for i, p := range fromStats.Biggest {
			if c := counted.Biggest[i]; p.Name != c.Name || p.Space != c.Space || p.Files != c.Files {
				t.Errorf("summary of %s: biggest entry %d from the statistics %+v, counted %+v", path, i, p, c)
			}
		}
	}
}
