package meta_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cairn/meta"
	"cairn/meta/engines"
)

// trackerVolume opens a formatted SQLite volume in a file of its own.
func trackerVolume(t *testing.T, name string) meta.Engine {
	t.Helper()
	e, err := engines.Open("sqlite3://" + filepath.Join(t.TempDir(), name+".db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if err := e.Init(t.Context(), meta.Format{Name: name, BlockSize: 4 << 20, Version: meta.FormatVersion}, false); err != nil {
		t.Fatal(err)
	}
	return e
}

// trackedVolume is a SQLite volume with a migration record, behind a
// Tracker that tracks into its change log as session 1.
func trackedVolume(t *testing.T) (*meta.Tracker, meta.ChangeLog) {
	t.Helper()
	e := trackerVolume(t, "src")
	l, ok := meta.Capability[meta.ChangeLog](e)
	if !ok {
		t.Fatal("SQLite has no meta.ChangeLog")
	}
	if err := l.SwapMigration(t.Context(), nil, []byte("test")); err != nil {
		t.Fatal(err)
	}
	tr := meta.NewTracker(e)
	if err := tr.Track(t.Context(), l, 1); err != nil {
		t.Fatal(err)
	}
	return tr, l
}

// must returns v, failing t on err: must(call())(t).
func must[T any](v T, err error) func(t *testing.T) T {
	return func(t *testing.T) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// inodes returns want, failing t on err.
func inodes(t *testing.T, want []meta.Ino, err error) []meta.Ino {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	return want
}

func mknod(t *testing.T, e meta.Engine, parent meta.Ino, name string, typ meta.FileType) meta.Ino {
	t.Helper()
	ino := must(e.NextInodes(t.Context(), 1))(t)
	must(e.Mknod(t.Context(), meta.RootCred, parent, name, ino, typ, 0755, 0, ""))(t)
	return ino
}

// TestTrackerMarks: every mutation a mount makes leaves a pre-mark and a
// post-mark with the same operation number, naming (at least) the inodes
// it changed that the migrator cannot find from a directory's entries.
func TestTrackerMarks(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		// run prepares through setup (untracked) and mutates through e;
		// it returns the inodes the marks must name.
		run func(t *testing.T, setup, e meta.Engine) []meta.Ino
	}{
		{"Mkdir", func(t *testing.T, setup, e meta.Engine) []meta.Ino {
			return []meta.Ino{meta.RootIno, mknod(t, e, meta.RootIno, "d", meta.TypeDirectory)}
		}},
		{"Write", func(t *testing.T, setup, e meta.Engine) []meta.Ino {
			f := mknod(t, setup, meta.RootIno, "f", meta.TypeFile)
			id := must(setup.NextSlices(ctx, 1))(t)
			_, _, err := e.Write(ctx, f, 0, meta.Slice{ID: id, Size: 10, Len: 10}, time.Now().UnixNano())
			return inodes(t, []meta.Ino{f}, err)
		}},
		{"SetAttr", func(t *testing.T, setup, e meta.Engine) []meta.Ino {
			f := mknod(t, setup, meta.RootIno, "f", meta.TypeFile)
			mode := uint16(0600)
			must(e.SetAttr(ctx, meta.RootCred, f, meta.SetAttr{Mode: &mode}))(t)
			return []meta.Ino{f}
		}},
		{"Link", func(t *testing.T, setup, e meta.Engine) []meta.Ino {
			f := mknod(t, setup, meta.RootIno, "f", meta.TypeFile)
			d := mknod(t, setup, meta.RootIno, "d", meta.TypeDirectory)
			must(e.Link(ctx, meta.RootCred, f, d, "g"))(t)
			return []meta.Ino{f, d}
		}},
		{"Unlink", func(t *testing.T, setup, e meta.Engine) []meta.Ino {
			d := mknod(t, setup, meta.RootIno, "d", meta.TypeDirectory)
			f := mknod(t, setup, d, "f", meta.TypeFile)
			must(setup.Link(ctx, meta.RootCred, f, meta.RootIno, "other"))(t)
			_, _, err := e.Unlink(ctx, meta.RootCred, d, "f", 1)
			return inodes(t, []meta.Ino{d, f}, err)
		}},
		{"RenameReplacing", func(t *testing.T, setup, e meta.Engine) []meta.Ino {
			a := mknod(t, setup, meta.RootIno, "a", meta.TypeDirectory)
			b := mknod(t, setup, meta.RootIno, "b", meta.TypeDirectory)
			moved := mknod(t, setup, a, "x", meta.TypeFile)
			old := mknod(t, setup, b, "y", meta.TypeFile)
			must(setup.Link(ctx, meta.RootCred, old, meta.RootIno, "keep"))(t)
			_, _, _, err := e.Rename(ctx, meta.RootCred, a, "x", b, "y", 0, 1)
			// old keeps a link, so Rename does not report it: the
			// migrator finds it gone from b's entries.
			return inodes(t, []meta.Ino{a, b, moved}, err)
		}},
		{"Xattr", func(t *testing.T, setup, e meta.Engine) []meta.Ino {
			f := mknod(t, setup, meta.RootIno, "f", meta.TypeFile)
			return inodes(t, []meta.Ino{f}, e.SetXattr(ctx, meta.RootCred, f, "user.k", []byte("v"), 0))
		}},
		{"UnlinkDelete", func(t *testing.T, setup, e meta.Engine) []meta.Ino {
			f := mknod(t, setup, meta.RootIno, "f", meta.TypeFile)
			_, _, _, err := meta.UnlinkDelete(ctx, e, meta.RootCred, meta.RootIno, "f", 1, f)
			return inodes(t, []meta.Ino{meta.RootIno, f}, err)
		}},
		{"Clone", func(t *testing.T, setup, e meta.Engine) []meta.Ino {
			f := mknod(t, setup, meta.RootIno, "f", meta.TypeFile)
			c, ok := meta.Capability[meta.Cloner](e)
			if !ok {
				t.Fatal("no Cloner through the Tracker")
			}
			ino := must(setup.NextInodes(ctx, 1))(t)
			must(c.Clone(ctx, meta.RootCred, f, meta.RootIno, "copy", ino, false))(t)
			return []meta.Ino{meta.RootIno, ino}
		}},
		{"RemoveEntries", func(t *testing.T, setup, e meta.Engine) []meta.Ino {
			d := mknod(t, setup, meta.RootIno, "d", meta.TypeDirectory)
			mknod(t, setup, d, "f", meta.TypeFile)
			r, ok := meta.Capability[meta.BatchRemover](e)
			if !ok {
				t.Fatal("no BatchRemover through the Tracker")
			}
			return inodes(t, []meta.Ino{d}, func() error { _, err := r.RemoveEntries(ctx, meta.RootCred, d, []string{"f"}, 1); return err }())
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, l := trackedVolume(t)
			start := must(l.ChangesEnd(ctx))(t)
			want := tc.run(t, tr.Unwrap(), tr)
			// Post-marks are appended in batches, at the latest when
			// the tracker pauses.
			if err := tr.Pause(ctx); err != nil {
				t.Fatal(err)
			}
			tr.Resume()
			changes := must(l.Changes(ctx, start, 100))(t)
			var before, after []meta.Change
			for _, c := range changes {
				switch c.Kind {
				case meta.ChangeBefore:
					before = append(before, c)
				case meta.ChangeAfter:
					after = append(after, c)
				}
			}
			if len(before) != 1 || len(after) != 1 || before[0].Operation != after[0].Operation || before[0].Seq > after[0].Seq {
				t.Fatalf("changes = %v, want one pre-mark and then one post-mark of the same operation", changes)
			}
			for _, ino := range want {
				if !slices.Contains(after[0].Inodes, ino) {
					t.Errorf("the post-mark %v does not name inode %d (want all of %v)", after[0], ino, want)
				}
			}
		})
	}
}

// countingLog counts the appends that carry post-marks.
type countingLog struct {
	meta.ChangeLog
	mu          sync.Mutex
	postAppends int
}

func (l *countingLog) AppendChanges(ctx context.Context, changes []meta.Change) (uint64, error) {
	if len(changes) > 0 && changes[0].Kind == meta.ChangeAfter {
		l.mu.Lock()
		l.postAppends++
		l.mu.Unlock()
	}
	return l.ChangeLog.AppendChanges(ctx, changes)
}

// TestTrackerBatchesPostMarks: the post-marks of mutations that end
// together are appended together, and all of them before Pause returns.
func TestTrackerBatchesPostMarks(t *testing.T) {
	ctx := context.Background()
	tr, l := trackedVolume(t)
	counting := &countingLog{ChangeLog: l}
	if err := tr.Track(ctx, counting, 1); err != nil {
		t.Fatal(err)
	}
	const writers, each = 8, 10
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				mknod(t, tr, meta.RootIno, fmt.Sprintf("w%d-%d", w, i), meta.TypeFile)
			}
		})
	}
	wg.Wait()
	if err := tr.Pause(ctx); err != nil {
		t.Fatal(err)
	}
	after := 0
	for _, c := range must(l.Changes(ctx, 0, 1000))(t) {
		if c.Kind == meta.ChangeAfter {
			after++
		}
	}
	if after != writers*each {
		t.Fatalf("%d post-marks after Pause, want %d", after, writers*each)
	}
	if counting.postAppends >= after {
		t.Errorf("%d post-marks took %d appends, want them batched", after, counting.postAppends)
	}
	t.Logf("%d post-marks in %d appends", after, counting.postAppends)
}

// TestTrackerUnmarkedCalls: id reservations and locks are held by a pause
// but leave no mark.
func TestTrackerUnmarkedCalls(t *testing.T) {
	ctx := context.Background()
	tr, l := trackedVolume(t)
	must(tr.NextInodes(ctx, 10))(t)
	must(tr.NextSlices(ctx, 10))(t)
	if err := tr.Flock(ctx, meta.RootIno, meta.LockOwner{Session: 1, Owner: 1}, meta.LockWrite); err != nil {
		t.Fatal(err)
	}
	if n := must(l.ChangesEnd(ctx))(t); n != 0 {
		t.Errorf("%d changes after id reservations and a lock, want none", n)
	}
}

// TestTrackerMigrationEnds: once the record is gone, a mutation runs
// untracked and the tracker stops tracking.
func TestTrackerMigrationEnds(t *testing.T) {
	ctx := context.Background()
	tr, l := trackedVolume(t)
	if err := l.SwapMigration(ctx, []byte("test"), nil); err != nil {
		t.Fatal(err)
	}
	mknod(t, tr, meta.RootIno, "f", meta.TypeFile)
	if tr.Tracking() {
		t.Error("still tracking after the migration record was removed")
	}
}

// TestTrackerPreMarkFails: a mutation whose pre-mark cannot be recorded
// fails with EIO and does not run.
func TestTrackerPreMarkFails(t *testing.T) {
	ctx := context.Background()
	e := trackerVolume(t, "vol")
	logVolume := trackerVolume(t, "log")
	l, _ := meta.Capability[meta.ChangeLog](logVolume)
	if err := l.SwapMigration(ctx, nil, []byte("test")); err != nil {
		t.Fatal(err)
	}
	tr := meta.NewTracker(e)
	if err := tr.Track(ctx, l, 1); err != nil {
		t.Fatal(err)
	}
	logVolume.Close() // the log's database goes away
	ino := must(tr.NextInodes(ctx, 1))(t)
	_, err := tr.Mknod(ctx, meta.RootCred, meta.RootIno, "f", ino, meta.TypeFile, 0644, 0, "")
	if !errors.Is(err, meta.ErrIO) {
		t.Fatalf("Mknod with a change log that cannot be written: %v, want EIO", err)
	}
	if _, _, err := e.Lookup(ctx, meta.RootIno, "f"); !errors.Is(err, meta.ErrNotFound) {
		t.Errorf("the refused Mknod ran: Lookup = %v, want ENOENT", err)
	}
}

// TestTrackerPauseAndSwap: writers keep creating files; after Pause no
// call reaches the old engine, after Swap and Resume every call reaches
// the new one, and no call fails.
func TestTrackerPauseAndSwap(t *testing.T) {
	ctx := context.Background()
	src, dst := trackerVolume(t, "src"), trackerVolume(t, "dst")
	tr := meta.NewTracker(src)
	const writers = 4
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	created := map[string]bool{}
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				name := fmt.Sprintf("w%d-%d", w, i)
				ino, err := tr.NextInodes(ctx, 1)
				if err == nil {
					_, err = tr.Mknod(ctx, meta.RootCred, meta.RootIno, name, ino, meta.TypeFile, 0644, 0, "")
				}
				if err != nil {
					errs <- fmt.Errorf("writer %d: create %s: %w", w, name, err)
					return
				}
				mu.Lock()
				created[name] = true
				mu.Unlock()
			}
		}()
	}
	count := func(e meta.Engine) int {
		return len(must(e.Readdir(ctx, meta.RootIno, "", 1<<20, false))(t))
	}
	for count(src) < 20 {
		time.Sleep(time.Millisecond)
	}
	if err := tr.Pause(ctx); err != nil {
		t.Fatal(err)
	}
	atPause := count(src)
	// The copy a migrator makes here, reduced to what this test needs:
	// DST's inode counter past SRC's (writers hold numbers from SRC),
	// and every name SRC holds.
	srcNext := must(src.NextInodes(ctx, 1))(t)
	must(dst.NextInodes(ctx, uint64(srcNext)))(t)
	for _, ent := range must(src.Readdir(ctx, meta.RootIno, "", 1<<20, false))(t) {
		mknod(t, dst, meta.RootIno, ent.Name, meta.TypeFile)
	}
	if count(src) != atPause {
		t.Fatalf("SRC changed while paused: %d entries, then %d", atPause, count(src))
	}
	old := must(tr.Swap(dst))(t)
	if old != src {
		t.Error("Swap did not return the engine it replaced")
	}
	tr.Resume()
	for count(dst) < atPause+20 {
		time.Sleep(time.Millisecond)
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if count(src) != atPause {
		t.Errorf("SRC changed after the swap: %d entries, then %d", atPause, count(src))
	}
	if n := count(dst); n != len(created) {
		t.Errorf("DST holds %d entries, the writers created %d", n, len(created))
	}
	if _, err := tr.Swap(src); err == nil {
		t.Error("Swap of a tracker that is not paused succeeded")
	}
}

// heldReads is an engine whose Lookup waits for release, and which
// records whether it was closed.
type heldReads struct {
	meta.Engine
	entered, release chan struct{}
	closed           atomic.Bool
}

func (h *heldReads) Lookup(ctx context.Context, parent meta.Ino, name string) (meta.Ino, meta.Attr, error) {
	close(h.entered)
	<-h.release
	if h.closed.Load() {
		return 0, meta.Attr{}, errors.New("the engine was closed under a read")
	}
	return h.Engine.Lookup(ctx, parent, name)
}

func (h *heldReads) Close() error {
	h.closed.Store(true)
	return nil
}

// TestTrackerClosesReplacedAfterReads: a read that went to the engine a
// Swap replaced finishes there; CloseReplaced closes that engine only
// once it has returned (a mount's look-up at the switch of a migration
// failed with EIO when SRC was closed under it).
func TestTrackerClosesReplacedAfterReads(t *testing.T) {
	ctx := t.Context()
	src := &heldReads{Engine: trackerVolume(t, "src"), entered: make(chan struct{}), release: make(chan struct{})}
	dst := trackerVolume(t, "dst")
	tr := meta.NewTracker(src)
	read := make(chan error, 1)
	go func() {
		_, _, err := tr.Lookup(ctx, meta.RootIno, "absent")
		read <- err
	}()
	<-src.entered
	must(struct{}{}, tr.Pause(ctx))(t)
	must(tr.Swap(dst))(t)
	tr.Resume()
	closed := make(chan error, 1)
	go func() { closed <- tr.CloseReplaced() }()
	for start := time.Now(); !src.closed.Load() && time.Since(start) < 100*time.Millisecond; {
		time.Sleep(time.Millisecond)
	}
	close(src.release)
	if err := <-read; !errors.Is(err, meta.ErrNotFound) {
		t.Errorf("a read in flight at the swap: %v, want ErrNotFound from the old engine", err)
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if !src.closed.Load() {
		t.Error("CloseReplaced returned without closing the engine it replaced")
	}
	if _, _, err := tr.Lookup(ctx, meta.RootIno, "absent"); !errors.Is(err, meta.ErrNotFound) {
		t.Errorf("a read after the swap: %v", err)
	}
}
