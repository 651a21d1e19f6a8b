package migrate

import (
	"context"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"cairn/internal/testenv"
	"cairn/meta"
	"cairn/meta/engines"
)

// testRun is Run with short limits for tests, recording its events.
type testRun struct {
	mu     sync.Mutex
	events []Event
	on     func(Event) // called with each event, when set
}

func (r *testRun) run(ctx context.Context, src, dst meta.Engine, dstURL string) error {
	opts := Options{AckTimeout: 5 * time.Second, PauseTimeout: 5 * time.Second, Lease: 3 * time.Second, RoundTarget: 50, Progress: func(e Event) {
		r.mu.Lock()
		r.events = append(r.events, e)
		r.mu.Unlock()
		if r.on != nil {
			r.on(e)
		}
	}}
	return Run(ctx, src, dst, "sqlite3:///src.db", dstURL, opts)
}

// last is the last event of stage.
func (r *testRun) last(stage Stage) (Event, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.events) - 1; i >= 0; i-- {
		if r.events[i].Stage == stage {
			return r.events[i], true
		}
	}
	return Event{}, false
}

// TestRunSQLiteToPostgres: Run moves a SQLite volume to PostgreSQL while
// two clients following the record write throughout. At the switch DST
// holds exactly SRC's tree, SRC says where it moved, both sessions
// report that they follow, and their writes go on in DST.
func TestRunSQLiteToPostgres(t *testing.T) {
	ctx := t.Context()
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	src := sqliteVolume(t)
	dstURL := testenv.Postgres(t).URL("postgres")
	dst := openEngine(t, dstURL)
	log, _ := meta.Capability[meta.ChangeLog](src)
	var followers []*follower
	var stops []func() error
	for i := range 2 {
		sid, err := src.NewSession(ctx, meta.SessionInfo{Hostname: "client", PID: 100 + i})
		if err != nil {
			t.Fatal(err)
		}
		tr := meta.NewTracker(src)
		w := &writer{e: tr, sid: sid, rand: rand.New(rand.NewPCG(uint64(seed), uint64(i))), dirs: []meta.Ino{meta.RootIno}}
		for range 200 {
			if err := w.step(ctx); err != nil {
				t.Fatal(err)
			}
		}
		followers = append(followers, startFollower(t, ctx, tr, log, sid, dst))
		stops = append(stops, startWriter(ctx, w))
	}
	stopAll := func() {
		for _, stop := range stops {
			if err := stop(); err != nil {
				t.Errorf("writer: %v", err)
			}
		}
	}
	var r testRun
	if err := r.run(ctx, src, dst, dstURL); err != nil {
		stopAll()
		t.Fatal(err)
	}
	if e, _ := r.last(StageAnnounce); len(e.Sessions) != 2 || e.Emptied {
		t.Errorf("announce: %+v, want 2 sessions tracking and nothing emptied", e)
	}
	if e, ok := r.last(StageBulkCopy); !ok || !e.Done {
		t.Errorf("no end of the bulk copy reported")
	}
	if _, ok := r.last(StageCatchUp); !ok {
		t.Errorf("no catch-up round reported")
	}
	sw, _ := r.last(StageSwitch)
	if len(sw.Sessions) != 2 || len(sw.Missing) != 0 {
		t.Errorf("switch: %d sessions follow, %d missing; want 2 and 0", len(sw.Sessions), len(sw.Missing))
	}
	if !equalStates(t, inodeStates(t, src), inodeStates(t, dst)) {
		t.Error("DST differs from SRC at the switch")
	}
	if err := meta.CheckMoved(ctx, src); !errors.Is(err, meta.ErrMoved) || !strings.Contains(err.Error(), dstURL) {
		t.Errorf("SRC after the switch: %v, want moved to %s", err, dstURL)
	}
	before, err := dst.Usage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range followers {
		f.release()
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
	t.Logf("switch: %d inodes copied while paused, paused %v", sw.Inodes, sw.Pause)

	if err := r.run(ctx, src, dst, dstURL); !errors.Is(err, meta.ErrMoved) {
		t.Errorf("a rerun after the switch: %v, want ErrMoved", err)
	}
}

// TestRunRefusesSilentSession: a live session that never acknowledges
// (a mount of an older cairn, heartbeating) makes Run refuse, naming it,
// and remove its record; DST stays untouched.
func TestRunRefusesSilentSession(t *testing.T) {
	ctx := t.Context()
	src := sqliteVolume(t)
	dstURL := testenv.Postgres(t).URL("postgres")
	dst := openEngine(t, dstURL)
	if _, err := src.NewSession(ctx, meta.SessionInfo{Hostname: "old-host", PID: 4242, MountPoint: "/mnt/old", Version: "0.9"}); err != nil {
		t.Fatal(err)
	}
	opts := Options{AckTimeout: 500 * time.Millisecond, Lease: 3 * time.Second}
	err := Run(ctx, src, dst, "sqlite3:///src.db", dstURL, opts)
	var silent *NotAcknowledgedError
	if !errors.As(err, &silent) || !strings.Contains(err.Error(), "old-host, pid 4242, mounted at /mnt/old, version 0.9") {
		t.Fatalf("Run with a silent session: %v, want it named", err)
	}
	log, _ := meta.Capability[meta.ChangeLog](src)
	if b, err := log.Migration(ctx); err != nil || b != nil {
		t.Errorf("record after the refusal: %q, %v; want none", b, err)
	}
	if _, err := dst.Load(ctx); !errors.Is(err, meta.ErrNotFormatted) {
		t.Errorf("DST after the refusal: %v, want unformatted", err)
	}
}

// TestRunAgainAfterInterrupt: a migration interrupted after its bulk copy
// leaves SRC without a record and DST holding a marked copy; a rerun
// empties that copy and completes. A DST holding any other volume, or SRC
// itself, is refused before anything is written.
func TestRunAgainAfterInterrupt(t *testing.T) {
	ctx := t.Context()
	src := sqliteVolume(t)
	for i := range 20 {
		ino, err := src.NextInodes(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := src.Mknod(ctx, meta.RootCred, meta.RootIno, "f"+string(rune('a'+i)), ino, meta.TypeFile, 0644, 0, ""); err != nil {
			t.Fatal(err)
		}
	}
	pg := testenv.Postgres(t)
	dstURL := pg.URL("postgres")
	dst := openEngine(t, dstURL)
	interrupted, cancel := context.WithCancel(ctx)
	r := testRun{on: func(e Event) {
		if e.Stage == StageCatchUp {
			cancel()
		}
	}}
	err := r.run(interrupted, src, dst, dstURL)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted Run: %v, want context.Canceled", err)
	}
	log, _ := meta.Capability[meta.ChangeLog](src)
	if b, err := log.Migration(ctx); err != nil || b != nil {
		t.Errorf("record after the interrupt: %q, %v; want none", b, err)
	}
	f, err := dst.Load(ctx)
	if err != nil || f.CopyID == "" {
		t.Fatalf("DST after the interrupt: %+v, %v; want a marked copy", f, err)
	}

	// Another volume, and SRC's own volume without a mark, are refused.
	other := openEngine(t, "sqlite3://"+t.TempDir()+"/other.db")
	otherFormat := testFormat
	otherFormat.UUID = "00000000-0000-4000-8000-000000000001"
	if err := other.Init(ctx, otherFormat, false); err != nil {
		t.Fatal(err)
	}
	if err := (&testRun{}).run(ctx, src, other, "sqlite3:///other.db"); !errors.Is(err, ErrNotEmpty) {
		t.Errorf("Run into another volume: %v, want ErrNotEmpty", err)
	}
	twin := openEngine(t, "sqlite3://"+t.TempDir()+"/twin.db")
	if err := twin.Init(ctx, testFormat, false); err != nil {
		t.Fatal(err)
	}
	if err := (&testRun{}).run(ctx, src, twin, "sqlite3:///twin.db"); !errors.Is(err, ErrSameVolume) {
		t.Errorf("Run into a volume of the same UUID: %v, want ErrSameVolume", err)
	}
	if err := (&testRun{}).run(ctx, src, src, "sqlite3:///src.db"); !errors.Is(err, ErrSameVolume) {
		t.Errorf("Run into SRC's own URL: %v, want ErrSameVolume", err)
	}

	var again testRun
	if err := again.run(ctx, src, dst, dstURL); err != nil {
		t.Fatalf("rerun: %v", err)
	}
	if e, _ := again.last(StageAnnounce); !e.Emptied {
		t.Error("the rerun did not report emptying the earlier copy")
	}
	if !equalStates(t, inodeStates(t, src), inodeStates(t, dst)) {
		t.Error("DST differs from SRC after the rerun")
	}
}

// TestRunRefusesLateSession: a client that registers while the volume is
// being copied (its first changes were made before it saw the record,
// after the snapshot) makes Run end at the pause, naming it; the record
// goes, and the paused clients go on with SRC.
func TestRunRefusesLateSession(t *testing.T) {
	ctx := t.Context()
	src := sqliteVolume(t)
	dstURL := testenv.Postgres(t).URL("postgres")
	dst := openEngine(t, dstURL)
	log, _ := meta.Capability[meta.ChangeLog](src)
	r := testRun{on: func(e Event) {
		if e.Stage != StageCatchUp || e.Round != 1 {
			return
		}
		sid, err := src.NewSession(ctx, meta.SessionInfo{Hostname: "late-host", PID: 99, MountPoint: "/mnt/late"})
		if err != nil {
			t.Error(err)
			return
		}
		startFollower(t, ctx, meta.NewTracker(src), log, sid, dst)
	}}
	err := r.run(ctx, src, dst, dstURL)
	var late *LateSessionError
	if !errors.As(err, &late) || !strings.Contains(err.Error(), "late-host, pid 99, mounted at /mnt/late") {
		t.Fatalf("Run with a client that started during the copy: %v, want it named", err)
	}
	if b, err := log.Migration(ctx); err != nil || b != nil {
		t.Errorf("record after the refusal: %q, %v; want none", b, err)
	}
	if err := meta.CheckMoved(ctx, src); err != nil {
		t.Errorf("SRC after the refusal: %v", err)
	}
}

// TestRunTakesClientStartedDuringCopy: a meta.Client started while the
// volume is being copied reads the record before its first change, says
// so, and the migration switches with it: its first change is on DST and
// it follows there.
func TestRunTakesClientStartedDuringCopy(t *testing.T) {
	ctx := t.Context()
	srcURL := "sqlite3://" + filepath.Join(t.TempDir(), "src.db")
	src := openEngine(t, srcURL)
	if err := src.Init(ctx, testFormat, false); err != nil {
		t.Fatal(err)
	}
	dstURL := testenv.Postgres(t).URL("postgres")
	dst := openEngine(t, dstURL)
	var late *meta.Client
	r := testRun{on: func(e Event) {
		if e.Stage != StageCatchUp || e.Round != 1 {
			return
		}
		e2, err := engines.Open(srcURL)
		if err != nil {
			t.Error(err)
			return
		}
		c := meta.NewClient(e2, meta.ClientConfig{Heartbeat: 50 * time.Millisecond,
			OpenEngine: func(context.Context, string) (meta.Engine, error) { return engines.Open(dstURL) },
			Session:    meta.SessionInfo{Hostname: "late-host", PID: 99}})
		if err := c.Start(ctx); err != nil {
			t.Error(err)
			return
		}
		t.Cleanup(func() {
			c.Close(context.Background())
			c.Engine().Close()
		})
		if _, _, err := c.Mknod(ctx, meta.RootCred, meta.RootIno, "first", meta.TypeFile, 0o644, 0, ""); err != nil {
			t.Errorf("the late client's first change: %v", err)
		}
		late = c
	}}
	if err := r.run(ctx, src, dst, dstURL); err != nil {
		t.Fatalf("Run with a client started during the copy: %v", err)
	}
	if late == nil {
		t.Fatal("no catch-up round: the late client never started")
	}
	if _, _, err := dst.Lookup(ctx, meta.RootIno, "first"); err != nil {
		t.Errorf("the late client's first change on DST: %v", err)
	}
	for start := time.Now(); !late.Followed(); time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > time.Minute {
			t.Fatal("after a minute, the late client has not followed the volume to DST")
		}
	}
}
