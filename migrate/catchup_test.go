package migrate

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"cairn/internal/testenv"
	"cairn/meta"
)

// startWriter runs w until the returned stop is called, which returns
// the writer's error.
func startWriter(ctx context.Context, w *writer) (stop func() error) {
	quit, done := make(chan struct{}), make(chan error, 1)
	go func() {
		for {
			select {
			case <-quit:
				done <- nil
				return
			default:
			}
			if err := w.step(ctx); err != nil {
				done <- err
				return
			}
		}
	}()
	return func() error { close(quit); return <-done }
}

// enginePairs are the SRC → DST pairs the migration tests run on: each
// opens a formatted SRC and an empty DST.
var enginePairs = []struct {
	name string
	open func(t *testing.T) (src, dst meta.Engine)
}{
	{"SQLiteToPostgres", func(t *testing.T) (meta.Engine, meta.Engine) {
		return sqliteVolume(t), openEngine(t, testenv.Postgres(t).URL("postgres"))
	}},
	{"RedisToEtcd", func(t *testing.T) (meta.Engine, meta.Engine) {
		return formattedVolume(t, testenv.Redis(t).URL(0)), openEngine(t, testenv.Etcd(t).URL("dst"))
	}},
	{"BadgerToMariaDB", func(t *testing.T) (meta.Engine, meta.Engine) {
		m := testenv.MariaDB(t)
		m.SQL(t, "CREATE DATABASE cairn")
		return formattedVolume(t, "badger://"+t.TempDir()), openEngine(t, m.URL("cairn"))
	}},
	{"SQLiteToRedis", func(t *testing.T) (meta.Engine, meta.Engine) {
		return sqliteVolume(t), openEngine(t, testenv.Redis(t).URL(0))
	}},
}

// formattedVolume is a volume formatted with testFormat at url.
func formattedVolume(t *testing.T, url string) meta.Engine {
	t.Helper()
	e := openEngine(t, url)
	if err := e.Init(t.Context(), testFormat, false); err != nil {
		t.Fatal(err)
	}
	return e
}

// TestCatchUpConverges: on each pair of engines, a tracked client
// changing the tree throughout the bulk copy and two catch-up rounds;
// once it stops (as at the switch, SRC still), Finish leaves DST holding
// exactly SRC's tree, DST's counters past SRC's, and SRC moved.
func TestCatchUpConverges(t *testing.T) {
	for _, pair := range enginePairs {
		t.Run(pair.name, func(t *testing.T) {
			src, dst := pair.open(t)
			testCatchUpConverges(t, src, dst)
		})
	}
}

func testCatchUpConverges(t *testing.T, src, dst meta.Engine) {
	ctx := t.Context()
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	log, _ := meta.Capability[meta.ChangeLog](src)
	record := meta.EncodeMigration(meta.MigrationRecord{ID: "catch-up test", Destination: dst.Name() + "://dst", Phase: meta.MigrationTracking, Deadline: time.Now().Add(time.Hour)})
	if err := log.SwapMigration(ctx, nil, record); err != nil {
		t.Fatal(err)
	}
	sid, err := src.NewSession(ctx, meta.SessionInfo{Hostname: "test"})
	if err != nil {
		t.Fatal(err)
	}
	tracker := meta.NewTracker(src)
	if err := tracker.Track(ctx, log, sid); err != nil {
		t.Fatal(err)
	}
	w := &writer{e: tracker, sid: sid, rand: rand.New(rand.NewPCG(uint64(seed), 2)), dirs: []meta.Ino{meta.RootIno}}
	for range 200 {
		if err := w.step(ctx); err != nil {
			t.Fatal(err)
		}
	}
	stop := startWriter(ctx, w)
	position, err := log.ChangesEnd(ctx)
	if err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	if err := BulkCopy(ctx, src, dst, nil); err != nil {
		stop()
		t.Fatal(err)
	}
	t.Logf("bulk copy: %v, %d operations so far", time.Since(started), w.ops)
	for round := 1; round <= 2; round++ {
		var copied int
		started = time.Now()
		position, copied, err = CatchUpRound(ctx, src, dst, log, position)
		if err != nil {
			stop()
			t.Fatal(err)
		}
		t.Logf("round %d: %d inodes in %v, to change %d", round, copied, time.Since(started), position)
	}
	if err := stop(); err != nil {
		t.Fatalf("writer: %v", err)
	}
	nextInode, err := src.NextInodes(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	nextSlice, err := src.NextSlices(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	started = time.Now()
	switched := meta.EncodeMigration(meta.MigrationRecord{ID: "catch-up test", Destination: dst.Name() + "://dst", Phase: meta.MigrationSwitched})
	copied, err := Finish(ctx, src, dst, log, position, func(ctx context.Context) error { return log.SwapMigration(ctx, record, switched) })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d operations; Finish (SRC still) %d inodes in %v", w.ops, copied, time.Since(started))

	now, copiedStates := inodeStates(t, src), inodeStates(t, dst)
	for _, ino := range union(now, copiedStates) {
		if !slices.Equal(now[ino], copiedStates[ino]) {
			t.Errorf("inode %d differs after Finish:\nSRC %q\nDST %q", ino, now[ino], copiedStates[ino])
		}
	}
	if ino, err := dst.NextInodes(ctx, 1); err != nil || ino <= nextInode {
		t.Errorf("DST's NextInodes after Finish = %d, %v; want above SRC's %d", ino, err, nextInode)
	}
	if id, err := dst.NextSlices(ctx, 1); err != nil || id <= nextSlice {
		t.Errorf("DST's NextSlices after Finish = %d, %v; want above SRC's %d", id, err, nextSlice)
	}
	if err := meta.CheckMoved(ctx, src); !errors.Is(err, meta.ErrMoved) {
		t.Errorf("CheckMoved of SRC after Finish = %v, want ErrMoved", err)
	}
}

// TestCopyInodesDirectoryRule: changes whose marks do not name every
// inode they change — an rmdir (names no child), a rename over a file
// that keeps another link (reports no replaced inode) — still reach DST,
// through the children that came into or left a marked directory.
func TestCopyInodesDirectoryRule(t *testing.T) {
	ctx := t.Context()
	src := sqliteVolume(t)
	dst := openEngine(t, "sqlite3://"+t.TempDir()+"/dst.db")
	mk := func(parent meta.Ino, name string, typ meta.FileType) meta.Ino {
		ino, err := src.NextInodes(ctx, 1)
		if err == nil {
			_, err = src.Mknod(ctx, meta.RootCred, parent, name, ino, typ, 0755, 0, "")
		}
		if err != nil {
			t.Fatal(err)
		}
		return ino
	}
	a := mk(meta.RootIno, "a", meta.TypeDirectory)
	mk(a, "empty", meta.TypeDirectory)
	target := mk(a, "target", meta.TypeFile)
	if _, err := src.Link(ctx, meta.RootCred, target, meta.RootIno, "other-link"); err != nil {
		t.Fatal(err)
	}
	mk(meta.RootIno, "moving", meta.TypeFile)
	if err := BulkCopy(ctx, src, dst, nil); err != nil {
		t.Fatal(err)
	}
	log, _ := meta.Capability[meta.ChangeLog](src)
	if err := log.SwapMigration(ctx, nil, []byte("directory rule test")); err != nil {
		t.Fatal(err)
	}
	tracker := meta.NewTracker(src)
	if err := tracker.Track(ctx, log, 1); err != nil {
		t.Fatal(err)
	}
	if err := tracker.Rmdir(ctx, meta.RootCred, a, "empty"); err != nil {
		t.Fatal(err)
	}
	if _, _, replaced, err := tracker.Rename(ctx, meta.RootCred, meta.RootIno, "moving", a, "target", 0, 1); err != nil || replaced != 0 {
		t.Fatalf("Rename over a file with another link: replaced %d, %v; want 0 (the case under test)", replaced, err)
	}
	if _, _, err := CatchUpRound(ctx, src, dst, log, 0); err != nil {
		t.Fatal(err)
	}
	now, copied := inodeStates(t, src), inodeStates(t, dst)
	for _, ino := range union(now, copied) {
		if !slices.Equal(now[ino], copied[ino]) {
			t.Errorf("inode %d differs after the round:\nSRC %q\nDST %q", ino, now[ino], copied[ino])
		}
	}
}
