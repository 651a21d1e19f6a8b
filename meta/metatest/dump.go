package metatest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cairn/meta"
)

// RunDump checks meta.Dumper on an engine that implements it: a volume
// with every kind of object dumps, loads into another empty database of
// the same engine and dumps again to the same records; load refuses a
// database that is not empty and leaves nothing behind when its input
// fails half-way; a dump taken while writers change the volume is one
// moment of it. open returns a fresh, empty, unformatted engine, as for
// Run.
func RunDump(t *testing.T, openRaw func(t *testing.T) meta.Engine) {
	// As every client does, the suite calls engines through meta.Checked,
	// so that AsDumper is tested through a wrapper too.
	open := func(t *testing.T) meta.Engine { return meta.Checked(openRaw(t)) }
	dumper := func(t *testing.T, e meta.Engine) meta.Dumper {
		t.Helper()
		d, ok := meta.Capability[meta.Dumper](e)
		if !ok {
			t.Fatalf("engine %s does not implement meta.Dumper", e.Name())
		}
		return d
	}
	t.Run("RoundTrip", func(t *testing.T) {
		x := newEnv(t, open)
		populate(x)
		first := dumpRecords(t, dumper(t, x.e))
		first.matches(t, x.e)
		first.holdsAllOf(t, populated)
		want := first.without(x.orphans)
		if len(first.records) != len(want.records) {
			t.Errorf("the dump holds records of orphans %v", x.orphans)
		}
		target := open(t)
		if err := dumper(t, target).Restore(t.Context(), first.reader()); err != nil {
			t.Fatalf("Restore: %v", err)
		}
		if err := Verify(t.Context(), target); err != nil {
			t.Errorf("Verify after Restore: %v", err)
		}
		second := dumpRecords(t, dumper(t, target))
		second.sameAs(t, want)
		u, err := target.Usage(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if u.Inodes != uint64(first.count(meta.DumpInode)) {
			t.Errorf("usage after Restore counts %d inodes, the dump holds %d", u.Inodes, first.count(meta.DumpInode))
		}
		ino, err := target.NextInodes(t.Context(), 1)
		if err != nil || uint64(ino) < first.header.NextInode {
			t.Errorf("NextInodes after Restore = %d, %v; want at least %d", ino, err, first.header.NextInode)
		}
		id, err := target.NextSlices(t.Context(), 1)
		if err != nil || id < first.header.NextSlice {
			t.Errorf("NextSlices after Restore = %d, %v; want at least %d", id, err, first.header.NextSlice)
		}
	})
	t.Run("NotFormatted", func(t *testing.T) {
		e := open(t)
		err := dumper(t, e).Dump(t.Context(), &recordSet{})
		if !errors.Is(err, meta.ErrNotFormatted) {
			t.Errorf("Dump of an empty database: %v, want ErrNotFormatted", err)
		}
	})
	t.Run("NotEmpty", func(t *testing.T) {
		x := newEnv(t, open)
		populate(x)
		src := dumpRecords(t, dumper(t, x.e))
		err := dumper(t, x.e).Restore(t.Context(), src.reader())
		if !errors.Is(err, meta.ErrDatabaseNotEmpty) {
			t.Fatalf("Restore into a formatted volume: %v, want ErrDatabaseNotEmpty", err)
		}
		dumpRecords(t, dumper(t, x.e)).sameAs(t, src)
	})
	t.Run("NewerVersion", func(t *testing.T) {
		x := newEnv(t, open)
		populate(x)
		src := dumpRecords(t, dumper(t, x.e))
		src.header.Format.Version = meta.FormatVersion + 1
		target := open(t)
		volume, ok := meta.VolumeDumper(target)
		if !ok {
			t.Fatal("no VolumeDumper")
		}
		if err := volume.Restore(t.Context(), src.reader()); !errors.Is(err, meta.ErrNewerFormat) {
			t.Errorf("Restore of a dump of format version %d: %v, want ErrNewerFormat", src.header.Format.Version, err)
		}
		if _, err := target.Load(t.Context()); !errors.Is(err, meta.ErrNotFormatted) {
			t.Errorf("Load after a refused Restore: %v, want ErrNotFormatted", err)
		}
	})
	t.Run("FailedHalfWay", func(t *testing.T) {
		x := newEnv(t, open)
		populate(x)
		src := dumpRecords(t, dumper(t, x.e))
		target := open(t)
		broken := src.reader()
		broken.failAfter = len(src.records) / 2
		if err := dumper(t, target).Restore(t.Context(), broken); err == nil {
			t.Fatal("Restore of an input that fails half-way succeeded")
		}
		if _, err := target.Load(t.Context()); !errors.Is(err, meta.ErrNotFormatted) {
			t.Errorf("Load after a failed Restore: %v, want ErrNotFormatted", err)
		}
		if err := dumper(t, target).Restore(t.Context(), src.reader()); err != nil {
			t.Fatalf("Restore after a failed one (was something left behind?): %v", err)
		}
		dumpRecords(t, dumper(t, target)).sameAs(t, src.without(x.orphans))
	})
	t.Run("OneMoment", func(t *testing.T) { dumpUnderWriters(t, open(t), dumper) })
	t.Run("Quotas", func(t *testing.T) { dumpQuotas(t, open) })
}

// populate makes one of every kind of object the dump carries.
func populate(x *env) {
	x.t.Helper()
	dir := x.mkdir(meta.RootIno, "dir")
	deep := x.mkdir(x.mkdir(dir, "a"), "b")
	file := x.create(deep, "file")
	x.write(file, 0, 0, 1000)
	x.write(file, 0, 100, 50) // overwrites part of the first slice
	x.write(file, 2, 4096, 8192)
	_, err := x.e.Truncate(x.ctx, meta.RootCred, file, 3*meta.ChunkSize)
	x.must(err, "Truncate")
	_, err = x.e.Link(x.ctx, meta.RootCred, file, meta.RootIno, "hard link")
	x.must(err, "Link")
	x.symlink(dir, "link", "a/b/file")
	x.symlink(dir, "odd\xfflink", "target\xfe")
	fifo, _ := x.mknodAs(meta.RootCred, dir, "fifo", meta.TypeFIFO, 0640)
	dev := x.newIno()
	_, err = x.e.Mknod(x.ctx, meta.RootCred, dir, "null", dev, meta.TypeCharDev, 0666, 0x0103, "")
	x.must(err, "Mknod chardev")
	mode, uid, gid := uint16(06755), uint32(1001), uint32(1002)
	atime, mtime := int64(1234567890123456789), int64(-5)
	_, err = x.e.SetAttr(x.ctx, meta.RootCred, file, meta.SetAttr{Uid: &uid, Gid: &gid})
	x.must(err, "chown")
	_, err = x.e.SetAttr(x.ctx, meta.RootCred, file, meta.SetAttr{Mode: &mode, Atime: &atime, Mtime: &mtime})
	x.must(err, "chmod")
	sticky := uint16(01777)
	_, err = x.e.SetAttr(x.ctx, meta.RootCred, dir, meta.SetAttr{Mode: &sticky})
	x.must(err, "chmod dir")
	x.must(x.e.SetXattr(x.ctx, meta.RootCred, file, "user.bin", []byte{0, 1, 0xff}, 0), "SetXattr")
	x.must(x.e.SetXattr(x.ctx, meta.RootCred, fifo, "user.empty", []byte{}, 0), "SetXattr")
	x.must(x.e.SetXattr(x.ctx, meta.RootCred, dir, "trusted.x", []byte("v"), 0), "SetXattr")
	for i := range 50 {
		x.create(dir, fmt.Sprintf("f%03d", i))
	}
	gone := x.create(meta.RootIno, "gone")
	x.write(gone, 0, 0, 10)
	x.unlink(meta.RootIno, "gone")
	x.release(gone) // its slice becomes dead
	open := x.create(meta.RootIno, "open")
	x.write(open, 0, 0, 10)
	x.unlink(meta.RootIno, "open") // an orphan of x.sid: left out of a dump
}

// populated is how many records of each kind a dump of what populate
// made holds: matches checks the records there are, this that none is
// missing.
var populated = map[meta.DumpKind]int{
	meta.DumpInode: 59, meta.DumpEntry: 59, meta.DumpSymlink: 2, meta.DumpXattr: 3, meta.DumpChunk: 2,
}

func (s *recordSet) holdsAllOf(t *testing.T, want map[meta.DumpKind]int) {
	t.Helper()
	for kind, n := range want {
		if got := s.count(kind); got != n {
			t.Errorf("the dump holds %d records of kind %d, want %d", got, kind, n)
		}
	}
}

// matches checks each record against what the engine's own methods say,
// so that an engine whose dump copies its storage encoding (rather than
// the values) fails here and not only when another engine loads it.
func (s *recordSet) matches(t *testing.T, e meta.Engine) {
	t.Helper()
	ctx := t.Context()
	for _, r := range s.records {
		var err error
		ok := true
		switch r.Kind {
		case meta.DumpInode:
			var a meta.Attr
			a, err = e.GetAttr(ctx, r.Ino)
			ok = a == r.Attr
		case meta.DumpEntry:
			var ino meta.Ino
			ino, _, err = e.Lookup(ctx, r.Ino, r.Name)
			ok = ino == r.Child
		case meta.DumpSymlink:
			var target string
			target, err = e.Readlink(ctx, r.Ino)
			ok = target == r.Target
		case meta.DumpXattr:
			var value []byte
			value, err = e.GetXattr(ctx, r.Ino, r.Name)
			ok = string(value) == string(r.Value)
		case meta.DumpChunk:
			var list []meta.Slice
			list, err = e.Read(ctx, r.Ino, r.Index)
			ok = slices.Equal(list, r.Slices)
		}
		if err != nil || !ok {
			t.Errorf("dump record %+v disagrees with the engine (%v)", r, err)
		}
	}
}

// recordSet collects a dump in memory and replays it.
type recordSet struct {
	mu      sync.Mutex
	header  meta.DumpHeader
	records []meta.DumpRecord
}

func (s *recordSet) Header(h meta.DumpHeader) error { s.header = h; return nil }

func (s *recordSet) Record(r *meta.DumpRecord) error {
	c := *r
	c.Value = slices.Clone(r.Value)
	c.Slices = slices.Clone(r.Slices)
	s.mu.Lock()
	s.records = append(s.records, c)
	s.mu.Unlock()
	return nil
}

func dumpRecords(t *testing.T, d meta.Dumper) *recordSet {
	t.Helper()
	s := &recordSet{}
	if err := d.Dump(t.Context(), s); err != nil {
		t.Fatalf("Dump: %v", err)
	}
	return s
}

func (s *recordSet) count(kind meta.DumpKind) int {
	n := 0
	for _, r := range s.records {
		if r.Kind == kind {
			n++
		}
	}
	return n
}

// without drops the records of the given inodes.
func (s *recordSet) without(inos map[meta.Ino]bool) *recordSet {
	out := &recordSet{header: s.header}
	for _, r := range s.records {
		if r.Kind == meta.DumpDeadSlice || !inos[r.Ino] {
			out.records = append(out.records, r)
		}
	}
	return out
}

func (s *recordSet) lines() []string {
	out := make([]string, len(s.records))
	for i, r := range s.records {
		out[i] = fmt.Sprintf("%+v", r)
	}
	slices.Sort(out)
	return out
}

// sameAs compares two dumps record by record, in any order, and their
// headers but for usage (recomputed by Restore).
func (s *recordSet) sameAs(t *testing.T, want *recordSet) {
	t.Helper()
	got, exp := s.lines(), want.lines()
	if !slices.Equal(got, exp) {
		for _, l := range exp {
			if !slices.Contains(got, l) {
				t.Errorf("dump lacks %s", l)
			}
		}
		for _, l := range got {
			if !slices.Contains(exp, l) {
				t.Errorf("dump has extra %s", l)
			}
		}
	}
	if s.header.Format != want.header.Format || s.header.NextInode != want.header.NextInode || s.header.NextSlice != want.header.NextSlice {
		t.Errorf("header %+v, want %+v", s.header, want.header)
	}
}

// replay is a meta.DumpReader over a recordSet; failAfter > 0 makes it
// fail after that many records, as a damaged file would.
type replay struct {
	s         *recordSet
	next      int
	failAfter int
}

func (s *recordSet) reader() *replay { return &replay{s: s} }

func (r *replay) Header() meta.DumpHeader { return r.s.header }

func (r *replay) Next() (*meta.DumpRecord, error) {
	if r.failAfter > 0 && r.next == r.failAfter {
		return nil, errors.New("damaged input")
	}
	if r.next == len(r.s.records) {
		return nil, io.EOF
	}
	r.next++
	return &r.s.records[r.next-1], nil
}

// dumpUnderWriters dumps while two writers each move a directory back and
// forth between two others. At every moment each moved directory has
// exactly one name, its parent is the directory that names it, and the
// link counts of the two match the subdirectories they hold; a dump that
// mixed moments (tables or key ranges read at different times) breaks one
// of these.
func dumpUnderWriters(t *testing.T, e meta.Engine, dumper func(*testing.T, meta.Engine) meta.Dumper) {
	x := &env{t: t, e: e, ctx: t.Context(), orphans: map[meta.Ino]bool{}}
	x.must(e.Init(x.ctx, volumeFormat("dump"), false), "Init")
	x.sid = x.session("dump")
	left, right := x.mkdir(meta.RootIno, "left"), x.mkdir(meta.RootIno, "right")
	// Entries that a dump reads between the two directories' moving
	// names, so that a dump which is not one moment has time to miss one.
	for i := range 1100 {
		x.create(right, fmt.Sprintf("pad%04d", i))
	}
	names := []string{"w0", "w1"}
	for _, n := range names {
		x.mkdir(left, n)
	}
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	var moves atomic.Int64
	errs := make(chan error, len(names))
	for _, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			from, to := left, right
			for ctx.Err() == nil {
				_, _, _, err := e.Rename(ctx, meta.RootCred, from, name, to, name, 0, x.sid)
				if err != nil {
					if ctx.Err() == nil {
						errs <- fmt.Errorf("writer %s: %w", name, err)
					}
					return
				}
				moves.Add(1)
				from, to = to, from
			}
		}()
	}
	defer func() { cancel(); wg.Wait() }()
	for moves.Load() < 10 {
		select {
		case err := <-errs:
			t.Fatal(err)
		default:
		}
		runtimeYield()
	}
	for round := range 5 {
		s := dumpRecords(t, dumper(t, e))
		seen := map[string]int{}
		namedBy := map[meta.Ino]meta.Ino{}
		subdirs := map[meta.Ino]uint32{}
		attrs := map[meta.Ino]meta.Attr{}
		for _, r := range s.records {
			switch {
			case r.Kind == meta.DumpInode:
				attrs[r.Ino] = r.Attr
			case r.Kind == meta.DumpEntry && (r.Ino == left || r.Ino == right) && slices.Contains(names, r.Name):
				seen[r.Name]++
				namedBy[r.Child] = r.Ino
				subdirs[r.Ino]++
			}
		}
		for _, n := range names {
			if seen[n] != 1 {
				t.Errorf("dump %d: directory %s has %d names, want 1: not one moment", round, n, seen[n])
			}
		}
		for child, parent := range namedBy {
			if attrs[child].Parent != parent {
				t.Errorf("dump %d: directory %d is named in %d but its parent is %d: not one moment", round, child, parent, attrs[child].Parent)
			}
		}
		for _, dir := range []meta.Ino{left, right} {
			if attrs[dir].Nlink != 2+subdirs[dir] {
				t.Errorf("dump %d: directory %d has nlink %d and holds %d subdirectories: not one moment", round, dir, attrs[dir].Nlink, subdirs[dir])
			}
		}
	}
	cancel()
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	if moves.Load() < 20 {
		t.Logf("writers made only %d moves during the dumps", moves.Load())
	}
}

// runtimeYield lets the writers run before the first dump.
func runtimeYield() { time.Sleep(time.Millisecond) }
