package migrate

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"cairn/internal/testenv"
	"cairn/meta"
)

// timedEngine records the longest call any mutation of a writer took:
// the pause an application saw.
type timedEngine struct {
	meta.Engine
	mu      sync.Mutex
	longest time.Duration
}

func (e *timedEngine) took(start time.Time) {
	d := time.Since(start)
	e.mu.Lock()
	e.longest = max(e.longest, d)
	e.mu.Unlock()
}

func (e *timedEngine) Mknod(ctx context.Context, cred meta.Cred, parent meta.Ino, name string, ino meta.Ino, typ meta.FileType, mode uint16, rdev uint32, target string) (meta.Attr, error) {
	defer e.took(time.Now())
	return e.Engine.Mknod(ctx, cred, parent, name, ino, typ, mode, rdev, target)
}

func (e *timedEngine) Write(ctx context.Context, ino meta.Ino, idx uint32, s meta.Slice, mtime int64) (meta.Attr, int, error) {
	defer e.took(time.Now())
	return e.Engine.Write(ctx, ino, idx, s, mtime)
}

// TestMigrationSQLiteToPostgres drives a whole migration at the package
// level: two clients (two trackers, two sessions) change the tree through
// the bulk copy and two catch-up rounds; a third client dies between its
// pre-mark and its post-mark; then both pause, Finish copies the rest,
// and at that moment DST holds exactly SRC's tree, and its directory
// statistics and quotas, changed before and after the bulk copy. SRC is then refused as
// moved, the clients swap to DST and go on there, and SRC stays as it was.
func TestMigrationSQLiteToPostgres(t *testing.T) {
	ctx := t.Context()
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	src := sqliteVolume(t)
	dst := openEngine(t, testenv.Postgres(t).URL("postgres"))
	log, _ := meta.Capability[meta.ChangeLog](src)
	record := meta.EncodeMigration(meta.MigrationRecord{ID: "test", Destination: "postgres://somewhere/db", Phase: meta.MigrationTracking, Deadline: time.Now().Add(time.Hour)})
	if err := log.SwapMigration(ctx, nil, record); err != nil {
		t.Fatal(err)
	}
	var trackers []*meta.Tracker
	var timed []*timedEngine
	var stops []func() error
	for i := range 2 {
		sid, err := src.NewSession(ctx, meta.SessionInfo{Hostname: "client"})
		if err != nil {
			t.Fatal(err)
		}
		tr := meta.NewTracker(src)
		if err := tr.Track(ctx, log, sid); err != nil {
			t.Fatal(err)
		}
		te := &timedEngine{Engine: tr}
		w := &writer{e: te, sid: sid, rand: rand.New(rand.NewPCG(uint64(seed), uint64(i))), dirs: []meta.Ino{meta.RootIno}}
		trackers, timed = append(trackers, tr), append(timed, te)
		stops = append(stops, startWriter(ctx, w))
	}
	stopAll := func() {
		for _, stop := range stops {
			if err := stop(); err != nil {
				t.Errorf("writer: %v", err)
			}
		}
	}
	position, err := log.ChangesEnd(ctx)
	if err != nil {
		t.Fatal(err)
	}
	changeUsage(t, trackers[0], true)
	if err := BulkCopy(ctx, src, dst, nil); err != nil {
		stopAll()
		t.Fatal(err)
	}
	for round := 1; round <= 2; round++ {
		var copied int
		if position, copied, err = CatchUpRound(ctx, src, dst, log, position); err != nil {
			stopAll()
			t.Fatal(err)
		}
		t.Logf("round %d: %d inodes", round, copied)
	}
	changeUsage(t, trackers[1], false)

	// A client that dies mid-operation: its pre-mark, its change, and no
	// post-mark.
	dead, err := src.NextInodes(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := log.AppendChanges(ctx, []meta.Change{{Kind: meta.ChangeBefore, Session: 99, Operation: 1, Inodes: []meta.Ino{meta.RootIno, dead}}}); err != nil {
		t.Fatal(err)
	}
	position, _, err = CatchUpRound(ctx, src, dst, log, position) // the round passes its pre-mark before the change lands
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.Mknod(ctx, meta.RootCred, meta.RootIno, "dead-client", dead, meta.TypeFile, 0644, 0, ""); err != nil {
		t.Fatal(err)
	}

	started := time.Now()
	for _, tr := range trackers {
		if err := tr.Pause(ctx); err != nil {
			t.Fatal(err)
		}
	}
	switched := meta.EncodeMigration(meta.MigrationRecord{ID: "test", Destination: "postgres://somewhere/db", Phase: meta.MigrationSwitched})
	copied, err := Finish(ctx, src, dst, log, position, func(ctx context.Context) error { return log.SwapMigration(ctx, record, switched) })
	if err != nil {
		t.Fatal(err)
	}
	atSwitch := inodeStates(t, src)
	if copied := inodeStates(t, dst); !equalStates(t, atSwitch, copied) {
		t.Error("DST differs from SRC at the switch")
	}
	checkSameUsage(t, src, dst)
	if err := meta.CheckMoved(ctx, src); !errors.Is(err, meta.ErrMoved) || !strings.Contains(err.Error(), "moved to postgres://somewhere/db") {
		t.Errorf("CheckMoved of SRC after the switch = %v, want 'moved to postgres://somewhere/db'", err)
	}
	if err := meta.CheckMoved(ctx, dst); err != nil {
		t.Errorf("CheckMoved of DST = %v", err)
	}
	for _, tr := range trackers {
		if _, err := tr.Swap(dst); err != nil {
			t.Fatal(err)
		}
		tr.StopTracking()
		tr.Resume()
	}
	pause := time.Since(started)
	before, err := dst.Usage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for {
		u, err := dst.Usage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if u != before {
			break // the writers go on, on DST
		}
		time.Sleep(time.Millisecond)
	}
	stopAll()
	if !equalStates(t, atSwitch, inodeStates(t, src)) {
		t.Error("SRC changed after the switch")
	}
	var longest time.Duration
	for _, te := range timed {
		longest = max(longest, te.longest)
	}
	t.Logf("switch: %d inodes copied while paused, %v from the first pause to the resume; longest single operation %v", copied, pause, longest)
}

// equalStates reports whether two trees are the same, saying how not.
func equalStates(t *testing.T, a, b map[meta.Ino][]string) bool {
	t.Helper()
	same := true
	for _, ino := range union(a, b) {
		if !slices.Equal(a[ino], b[ino]) {
			t.Errorf("inode %d:\n%q\n%q", ino, a[ino], b[ino])
			same = false
		}
	}
	return same
}
