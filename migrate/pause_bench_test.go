package migrate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"cairn/internal/testenv"
	"cairn/meta"
	"cairn/meta/engines"
)

// BenchmarkMigratePause moves a SQLite volume of N inodes to an empty
// PostgreSQL database with Run while clients — meta.Clients that follow
// the migration record as mounts do, each on its own connection to SRC —
// keep creating, writing, renaming and unlinking files, and reports how
// long their mutations waited at the switch: Run's pause ("pause-ms")
// and the longest operation under way during it ("longest-op-ms"),
// against the longest before the migration and while tracking, with the
// volume's size, the bulk copy's time and the catch-up rounds. The pause
// must stay under a second and must not grow with N. It ends by checking
// that DST holds the volume and each writer's files, so that it cannot
// time a migration that lost changes.
//
// N is 10,000, or each size in $CAIRN_MIGRATE_INODES (comma-separated);
// $CAIRN_MIGRATE_WRITERS is the number of clients (2). Every iteration is
// a whole migration, so run it with -benchtime 1x:
//
//	CAIRN_MIGRATE_INODES=10000,1000000 go test -run XXX -bench MigratePause -benchtime 1x ./migrate
func BenchmarkMigratePause(b *testing.B) {
	sizes := []uint64{10_000}
	if v := os.Getenv("CAIRN_MIGRATE_INODES"); v != "" {
		sizes = nil
		for _, field := range strings.Split(v, ",") {
			n, err := strconv.ParseUint(strings.TrimSpace(field), 10, 64)
			if err != nil || n < 3 {
				b.Fatalf("CAIRN_MIGRATE_INODES=%q: want inode counts of at least 3, comma-separated", v)
			}
			sizes = append(sizes, n)
		}
	}
	writers := 2
	if v := os.Getenv("CAIRN_MIGRATE_WRITERS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("CAIRN_MIGRATE_WRITERS=%q: want a number of writers, at least 1", v)
		}
		writers = n
	}
	server := testenv.Postgres(b)
	databases := 0
	for _, n := range sizes {
		b.Run(fmt.Sprintf("inodes=%d", n), func(b *testing.B) {
			for b.Loop() {
				databases++
				database := fmt.Sprintf("pause%d", databases)
				server.SQL(b, "postgres", "CREATE DATABASE "+database)
				measurePause(b, n, writers, server.URL(database))
			}
		})
	}
}

// measurePause runs one migration of a volume of n inodes into the empty
// database at dstURL, under writerCount writers, and reports what it
// measured.
func measurePause(b *testing.B, n uint64, writerCount int, dstURL string) {
	ctx := b.Context()
	srcURL := "sqlite3://" + filepath.Join(b.TempDir(), "src.db")
	built := time.Now()
	src := openEngine(b, srcURL)
	dumper, _ := meta.Capability[meta.Dumper](src)
	volume := newGeneratedVolume(n)
	if err := dumper.Restore(ctx, volume); err != nil {
		b.Fatalf("build the volume: %v", err)
	}
	b.Logf("%d inodes loaded into SQLite in %v", n, time.Since(built).Round(time.Millisecond))
	dst := openEngine(b, dstURL)

	var writers []*pauseWriter
	for i := range writerCount {
		w, err := startPauseWriter(ctx, srcURL, i)
		if err != nil {
			b.Fatal(err)
		}
		writers = append(writers, w)
		defer w.close()
	}
	stopAll := func() error {
		var errs []error
		for _, w := range writers {
			errs = append(errs, w.stop())
		}
		return errors.Join(errs...)
	}

	// The writers alone first: their longest operation before the
	// migration is what the engines' own waits cost (SQLite's lock,
	// shared by three connections here).
	time.Sleep(time.Second)
	var (
		mu         sync.Mutex
		started    = time.Now()
		bulkFrom   time.Time
		bulk       time.Duration
		rounds     []int
		pauseFrom  time.Time // when Run set the phase "pausing"
		pauseAcked time.Duration
		switched   Event
	)
	progress := func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case e.Stage == StageAnnounce:
			bulkFrom = time.Now()
		case e.Stage == StageBulkCopy && e.Done:
			bulk = time.Since(bulkFrom)
		case e.Stage == StageCatchUp:
			rounds = append(rounds, e.Inodes)
		case e.Stage == StagePause:
			// Run reports the pause so far the moment every client
			// has paused: it started that long ago.
			pauseFrom, pauseAcked = time.Now().Add(-e.Pause), e.Pause
		case e.Stage == StageSwitch:
			switched = e
		}
	}
	log, replacer := newTimedLog(src), newTimedReplacer(dst)
	err := Run(ctx, log, replacer, srcURL, dstURL, Options{Progress: progress})
	if err != nil {
		b.Fatalf("migrate: %v", err)
	}
	took := time.Since(started)
	if len(switched.Missing) > 0 || len(switched.Sessions) != len(writers) {
		b.Fatalf("switch: %d sessions follow DST, %d do not; want all %d", len(switched.Sessions), len(switched.Missing), len(writers))
	}
	// Every writer goes on a little on DST before it stops.
	for _, w := range writers {
		w.waitFor(ctx, w.cycles()+20)
	}
	if err := stopAll(); err != nil {
		b.Fatalf("writer: %v", err)
	}
	checkPauseResult(b, src, dst, volume, writers)

	// An operation waited at the switch if it was under way at any
	// moment of Run's pause; those before Run show what the engines cost
	// without a migration, the others while SRC's clients track.
	pauseUntil := pauseFrom.Add(switched.Pause)
	var before, atSwitch, elsewhere timedOperation
	var total time.Duration
	operations := 0
	for _, w := range writers {
		for _, o := range w.operations {
			total += o.took
			operations++
			switch {
			case o.start.Add(o.took).Before(started):
				before = before.longer(o)
			case o.start.Before(pauseUntil) && o.start.Add(o.took).After(pauseFrom):
				atSwitch = atSwitch.longer(o)
			default:
				elsewhere = elsewhere.longer(o)
			}
		}
	}
	// Once every client paused, Run reads the change log and copies.
	everyonePaused := pauseFrom.Add(pauseAcked)
	logReads, logTime := log.reads.within(everyonePaused, pauseUntil)
	writes, writeTime := replacer.writes.within(everyonePaused, pauseUntil)
	b.ReportMetric(float64(n), "inodes")
	b.ReportMetric(bulk.Seconds(), "bulk-s")
	b.ReportMetric(float64(len(rounds)), "rounds")
	b.ReportMetric(float64(switched.Inodes), "switch-inodes")
	b.ReportMetric(milliseconds(switched.Pause), "pause-ms")
	b.ReportMetric(milliseconds(atSwitch.took), "longest-op-ms")
	b.ReportMetric(milliseconds(before.took), "longest-before-op-ms")
	b.ReportMetric(milliseconds(elsewhere.took), "longest-other-op-ms")
	b.Logf("%d inodes: migrated in %v; bulk copy %v; catch-up rounds copied %v inodes; the switch copied %d, every client paused %v after the pause began, the pause lasted %v",
		n, took.Round(time.Millisecond), bulk.Round(time.Millisecond), rounds, switched.Inodes, pauseAcked.Round(time.Millisecond), switched.Pause.Round(time.Millisecond))
	b.Logf("the pause: %v until every client paused (the record's write and the clients' poll, every %v, included), then %d reads of the change log (pages of up to 1,000) took %v, %d writes to DST %v, the rest (reading the inodes in SRC, the counters, the record) %v",
		pauseAcked.Round(time.Millisecond), meta.MigrationPoll, logReads, logTime.Round(time.Millisecond), writes, writeTime.Round(time.Millisecond),
		(switched.Pause - pauseAcked - logTime - writeTime).Round(time.Millisecond))
	b.Logf("%d writer operations, mean %v; the longest: before the migration a %s of %v, under way at the switch a %s of %v, otherwise a %s of %v, started %v after Run",
		operations, (total / time.Duration(max(operations, 1))).Round(time.Microsecond), before.name, before.took.Round(time.Millisecond),
		atSwitch.name, atSwitch.took.Round(time.Millisecond), elsewhere.name, elsewhere.took.Round(time.Millisecond), elsewhere.start.Sub(started).Round(time.Millisecond))
}

func milliseconds(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// checkPauseResult checks, cheaply, that the migration the benchmark
// timed worked: DST holds the bulk copy's last file, and each writer's
// directory on DST holds exactly the files the writer kept, the newest
// of which — written after the switch — SRC never saw.
func checkPauseResult(b *testing.B, src, dst meta.Engine, volume *generatedVolume, writers []*pauseWriter) {
	ctx := b.Context()
	if err := meta.CheckMoved(ctx, src); !errors.Is(err, meta.ErrMoved) {
		b.Errorf("SRC after the migration: %v, want moved", err)
	}
	parent, name := volume.lastFile()
	if _, _, err := dst.Lookup(ctx, parent, name); err != nil {
		b.Errorf("the volume's last file %s in DST: %v", name, err)
	}
	for _, w := range writers {
		entries, err := dst.Readdir(ctx, w.dir, "", 1<<20, false)
		if err != nil {
			b.Fatalf("read writer %d's directory in DST: %v", w.index, err)
		}
		var got []string
		for _, e := range entries {
			got = append(got, e.Name)
		}
		want := w.kept()
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			b.Errorf("writer %d's directory in DST holds %v, want %v", w.index, got, want)
		}
		newest := w.newest()
		if _, _, err := src.Lookup(ctx, w.dir, newest); !errors.Is(err, meta.ErrNotFound) {
			b.Errorf("writer %d's newest file %s in SRC: %v, want not found (written after the switch)", w.index, newest, err)
		}
	}
}

// pauseWriter is a client of the volume, as a mount's, in a loop of small
// mutations in a directory of its own — create a file, write a slice to
// it, rename it, unlink the file renamed keptFiles cycles before — timing
// each.
type pauseWriter struct {
	client *meta.Client
	index  int
	dir    meta.Ino
	quit   chan struct{}
	done   chan error
	ended  sync.Once
	err    error // the loop's, once ended

	mu         sync.Mutex
	cycle      int // cycles completed
	operations []timedOperation
}

// timedOperation is one operation a writer made: which, when it started
// and how long it took.
type timedOperation struct {
	name  string
	start time.Time
	took  time.Duration
}

// longer is the longer of o and other.
func (o timedOperation) longer(other timedOperation) timedOperation {
	if other.took > o.took {
		return other
	}
	return o
}

// keptFiles is how many of its newest files a writer keeps.
const keptFiles = 10

func startPauseWriter(ctx context.Context, srcURL string, index int) (*pauseWriter, error) {
	engine, err := engines.Open(srcURL)
	if err != nil {
		return nil, err
	}
	client := meta.NewClient(engine, meta.ClientConfig{
		// Sooner than a mount's 10 seconds, to shorten the wait for the
		// acknowledgements; the pause does not depend on it (a client
		// reads the record every meta.MigrationPoll once one exists).
		Heartbeat: time.Second,
		Session:   meta.SessionInfo{Hostname: "pause-bench", PID: 1000 + index},
		OpenEngine: func(ctx context.Context, url string) (meta.Engine, error) {
			return engines.Open(url)
		},
	})
	if err := client.Start(ctx); err != nil {
		engine.Close()
		return nil, err
	}
	dir, _, err := client.Mknod(ctx, meta.RootCred, meta.RootIno, fmt.Sprintf("writer%d", index), meta.TypeDirectory, 0755, 0, "")
	if err != nil {
		client.Close(ctx)
		engine.Close()
		return nil, err
	}
	w := &pauseWriter{client: client, index: index, dir: dir, quit: make(chan struct{}), done: make(chan error, 1)}
	go func() { w.done <- w.run(ctx) }()
	return w, nil
}

func (w *pauseWriter) run(ctx context.Context) error {
	for cycle := 0; ; cycle++ {
		select {
		case <-w.quit:
			return nil
		default:
		}
		if err := w.mutate(ctx, cycle); err != nil {
			return fmt.Errorf("writer %d, cycle %d: %w", w.index, cycle, err)
		}
		w.mu.Lock()
		w.cycle = cycle + 1
		w.mu.Unlock()
	}
}

// mutate makes one cycle's four mutations.
func (w *pauseWriter) mutate(ctx context.Context, cycle int) error {
	created, renamed := fmt.Sprintf("new%d", cycle), fmt.Sprintf("file%d", cycle)
	var ino meta.Ino
	err := w.timed("create", func() (err error) {
		ino, _, err = w.client.Mknod(ctx, meta.RootCred, w.dir, created, meta.TypeFile, 0644, 0, "")
		return err
	})
	if err != nil {
		return fmt.Errorf("create %s: %w", created, err)
	}
	err = w.timed("write", func() error {
		id, err := w.client.NewSliceID(ctx)
		if err == nil {
			_, _, err = w.client.Write(ctx, ino, 0, meta.Slice{ID: id, Size: 4096, Len: 4096}, time.Now().UnixNano())
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("write %s: %w", created, err)
	}
	err = w.timed("rename", func() error {
		_, _, _, err := w.client.Rename(ctx, meta.RootCred, w.dir, created, w.dir, renamed, 0)
		return err
	})
	if err != nil {
		return fmt.Errorf("rename %s: %w", created, err)
	}
	if cycle < keptFiles {
		return nil
	}
	old := fmt.Sprintf("file%d", cycle-keptFiles)
	err = w.timed("unlink", func() error {
		_, _, err := w.client.Unlink(ctx, meta.RootCred, w.dir, old)
		return err
	})
	if err != nil {
		return fmt.Errorf("unlink %s: %w", old, err)
	}
	return nil
}

// timed runs one operation and records how long it took.
func (w *pauseWriter) timed(name string, operation func() error) error {
	start := time.Now()
	err := operation()
	took := time.Since(start)
	w.mu.Lock()
	w.operations = append(w.operations, timedOperation{name: name, start: start, took: took})
	w.mu.Unlock()
	return err
}

func (w *pauseWriter) cycles() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cycle
}

// waitFor returns once the writer completed cycles cycles, or stopped.
func (w *pauseWriter) waitFor(ctx context.Context, cycles int) {
	for w.cycles() < cycles && ctx.Err() == nil {
		select {
		case err := <-w.done:
			w.done <- err
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// stop ends the loop, if it still runs, and returns its error.
func (w *pauseWriter) stop() error {
	w.ended.Do(func() {
		close(w.quit)
		w.err = <-w.done
	})
	return w.err
}

// kept is the names a stopped writer's directory holds.
func (w *pauseWriter) kept() []string {
	var names []string
	for cycle := max(0, w.cycle-keptFiles); cycle < w.cycle; cycle++ {
		names = append(names, fmt.Sprintf("file%d", cycle))
	}
	return names
}

// newest is the name of the last file a stopped writer made.
func (w *pauseWriter) newest() string { return fmt.Sprintf("file%d", w.cycle-1) }

// close stops the writer, ends the client's session and closes the engine it is on.
func (w *pauseWriter) close() {
	w.stop()
	ctx := context.Background()
	w.client.Close(ctx)
	w.client.Engine().Close()
}
