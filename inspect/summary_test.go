package inspect

import (
	"context"
	"fmt"
	"testing"
	"time"

	"cairn/meta"
	"cairn/meta/kv"
)

// summaryVolume is an in-memory volume with a tree made through a
// meta.Client after a mix of creates, writes, truncates, renames, links
// and unlinks, its statistics flushed.
func summaryVolume(t *testing.T) (meta.Engine, *meta.Client) {
	t.Helper()
	ctx := context.Background()
	eng := kv.OpenMem()
	t.Cleanup(func() { eng.Close() })
	if err := eng.Init(ctx, meta.Format{Name: "t", BlockSize: 4 << 20, Version: meta.FormatVersion}, false); err != nil {
		t.Fatal(err)
	}
	c := meta.NewClient(eng, meta.ClientConfig{})
	must := func(err error, what string) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	mkdir := func(parent meta.Ino, name string) meta.Ino {
		ino, _, err := c.Mknod(ctx, meta.RootCred, parent, name, meta.TypeDirectory, 0o755, 0, "")
		must(err, "mkdir "+name)
		return ino
	}
	file := func(parent meta.Ino, name string, length uint32) meta.Ino {
		ino, _, err := c.Mknod(ctx, meta.RootCred, parent, name, meta.TypeFile, 0o644, 0, "")
		must(err, "create "+name)
		if length > 0 {
			id, err := c.NewSliceID(ctx)
			must(err, "slice id")
			_, _, err = c.Write(ctx, ino, 0, meta.Slice{ID: id, Size: length, Len: length}, time.Now().UnixNano())
			must(err, "write "+name)
		}
		return ino
	}
	a := mkdir(meta.RootIno, "a")
	b := mkdir(a, "b")
	cdir := mkdir(b, "c")
	d := mkdir(meta.RootIno, "d")
	e := mkdir(d, "e")
	f1 := file(a, "f1", 10000)
	f2 := file(b, "f2", 5000)
	f3 := file(cdir, "f3", 1<<20)
	file(d, "f4", 300)
	file(e, "f5", 7000)
	file(meta.RootIno, "top", 100)
	for i := range 30 {
		file(e, fmt.Sprint("many", i), uint32(i*1000))
	}
	_, err := c.Truncate(ctx, meta.RootCred, f2, 20000)
	must(err, "truncate up")
	_, err = c.Truncate(ctx, meta.RootCred, f3, 4097)
	must(err, "truncate down")
	_, _, _, err = c.Rename(ctx, meta.RootCred, b, "c", d, "c", 0)
	must(err, "rename a directory across")
	_, _, _, err = c.Rename(ctx, meta.RootCred, d, "f4", a, "f4", 0)
	must(err, "rename a file across")
	_, err = c.Link(ctx, meta.RootCred, f1, e, "hard")
	must(err, "link")
	_, _, err = c.Unlink(ctx, meta.RootCred, e, "f5")
	must(err, "unlink")
	_, _, err = c.Mknod(ctx, meta.RootCred, d, "s", meta.TypeSymlink, 0o777, 0, "a/f1")
	must(err, "symlink")
	must(c.FlushDirStats(ctx), "flush the statistics")
	return eng, c
}

// TestSummaryFromStatistics: a summary read from the directory
// statistics has the space, files and directories of a full count, for
// the whole tree and for each biggest entry, and says where its figures
// come from.
func TestSummaryFromStatistics(t *testing.T) {
	eng, _ := summaryVolume(t)
	ctx := context.Background()
	counted, err := Summarize(ctx, eng, meta.RootIno, SummaryOptions{Top: 10, Workers: 2, Count: true})
	if err != nil {
		t.Fatal(err)
	}
	fromStats, err := Summarize(ctx, eng, meta.RootIno, SummaryOptions{Top: 10, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if counted.Source != "count" || fromStats.Source != "statistics" || fromStats.Counted != 0 {
		t.Errorf("sources %q and %q (%d counted), want count and statistics (none counted)", counted.Source, fromStats.Source, fromStats.Counted)
	}
	sameFigures(t, "the root", fromStats, counted)
	if counted.Files != 37 || counted.Directories != 6 {
		t.Errorf("the count found %d files and %d directories, want 37 and 6", counted.Files, counted.Directories)
	}
}

// TestSummaryWithoutStatistics: directories without statistics (a volume
// from before them) are counted instead, and the summary says how many,
// or that it is a count when none had any.
func TestSummaryWithoutStatistics(t *testing.T) {
	eng, _ := summaryVolume(t)
	ctx := context.Background()
	stats, _ := meta.Capability[meta.DirStatStore](eng)
	all, err := stats.AllDirStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var forget []meta.Ino
	for dir := range all {
		if dir != meta.RootIno {
			forget = append(forget, dir)
		}
	}
	if err := stats.SetDirStats(ctx, nil, forget); err != nil {
		t.Fatal(err)
	}
	counted, err := Summarize(ctx, eng, meta.RootIno, SummaryOptions{Top: 10, Workers: 2, Count: true})
	if err != nil {
		t.Fatal(err)
	}
	fromStats, err := Summarize(ctx, eng, meta.RootIno, SummaryOptions{Top: 10, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if fromStats.Source != "count" || fromStats.Size != counted.Size {
		t.Errorf("source %q, size %d; want a count (every directory below the root was counted) of %d bytes", fromStats.Source, fromStats.Size, counted.Size)
	}
	sameFigures(t, "the root", fromStats, counted)
	// Statistics for a's tree (a and a/b) only: the other directories
	// are counted, and the summary says how many.
	a, _, err := eng.Lookup(ctx, meta.RootIno, "a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := meta.RepairDirStats(ctx, eng, a); err != nil {
		t.Fatal(err)
	}
	mixed, err := Summarize(ctx, eng, meta.RootIno, SummaryOptions{Top: 10, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if mixed.Source != "statistics" || mixed.Counted != 3 {
		t.Errorf("source %q with %d directories counted, want statistics with 3 of the 5 below the root counted", mixed.Source, mixed.Counted)
	}
	sameFigures(t, "the root, a's statistics repaired", mixed, counted)
}

func sameFigures(t *testing.T, what string, got, want Summary) {
	t.Helper()
	if got.Space != want.Space || got.Files != want.Files || got.Directories != want.Directories {
		t.Errorf("%s: statistics say %d bytes of space, %d files, %d directories; a count %d, %d, %d",
			what, got.Space, got.Files, got.Directories, want.Space, want.Files, want.Directories)
	}
	if len(got.Biggest) != len(want.Biggest) {
		t.Fatalf("%s: %d biggest entries, a count %d", what, len(got.Biggest), len(want.Biggest))
	}
	for i, p := range got.Biggest {
		w := want.Biggest[i]
		if p.Name != w.Name || p.Space != w.Space || p.Files != w.Files || p.Directories != w.Directories {
			t.Errorf("%s: biggest entry %d is %+v, a count %+v", what, i, p, w)
		}
	}
}
