package tests

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"cairn/internal/testenv"
	"cairn/meta"
	"cairn/meta/engines"
)

// migrationWriter changes the files of its own directory in a mounted
// volume until stopped — creates with fsync, renames, deletes — and keeps
// the tree its operations returned: every file whose fsync returned, with
// its content, under the name its last rename gave it. It also keeps the
// longest time one operation took.
type migrationWriter struct {
	dir     string // its directory, seen through its mount
	rand    *rand.Rand
	files   map[string][]byte // name → content, for every fsync'd file
	ops     int
	longest time.Duration
	failure error
	done    atomic.Int64 // operations done, for another goroutine to watch
	// log, when set, gets a line for each operation that returned (see
	// writerLog): what a writer process tells the test.
	log io.Writer
}

// record writes the line of an operation that started at started to
// the log, if any, ending with when it started and how long it took
// (Unix and duration nanoseconds).
func (w *migrationWriter) record(started time.Time, format string, args ...any) {
	if w.log != nil {
		fmt.Fprintf(w.log, format+" %d %d\n", append(args, started.UnixNano(), time.Since(started).Nanoseconds())...)
	}
}

// opsDone is how many operations the writer has done so far.
func (w *migrationWriter) opsDone() int64 { return w.done.Load() }

// step does one operation and records what returned.
func (w *migrationWriter) step() error {
	w.ops++
	names := make([]string, 0, len(w.files))
	for name := range w.files {
		names = append(names, name)
	}
	slices.Sort(names)
	started := time.Now()
	defer func() { w.longest = max(w.longest, time.Since(started)) }()
	switch r := w.rand.IntN(10); {
	case r < 6 || len(names) < 5: // create, write, fsync
		name := fmt.Sprintf("f%05d", w.ops)
		seed, size := w.rand.Uint64(), 1+w.rand.IntN(20000)
		data := pattern(seed, size)
		f, err := os.OpenFile(filepath.Join(w.dir, name), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		if _, err := f.Write(data); err != nil {
			f.Close()
			return err
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		w.files[name] = data
		w.record(started, "create %s %d %d", name, seed, size)
	case r < 8: // rename
		from := names[w.rand.IntN(len(names))]
		to := fmt.Sprintf("r%05d", w.ops)
		if err := os.Rename(filepath.Join(w.dir, from), filepath.Join(w.dir, to)); err != nil {
			return err
		}
		w.files[to] = w.files[from]
		delete(w.files, from)
		w.record(started, "rename %s %s", from, to)
	default: // delete
		name := names[w.rand.IntN(len(names))]
		if err := os.Remove(filepath.Join(w.dir, name)); err != nil {
			return err
		}
		delete(w.files, name)
		w.record(started, "delete %s", name)
	}
	return nil
}

// run steps until stop is closed, or the first failure.
func (w *migrationWriter) run(stop <-chan struct{}, done *sync.WaitGroup) {
	defer done.Done()
	for {
		select {
		case <-stop:
			return
		default:
		}
		if err := w.step(); err != nil {
			w.failure = fmt.Errorf("operation %d: %w", w.ops, err)
			return
		}
		w.done.Add(1)
	}
}

// TestMigrateMounted: two 'cairn mount' processes of a SQLite volume
// write, fsync, rename and delete files throughout 'cairn migrate' to
// PostgreSQL. Afterwards no operation failed, every fsync'd file reads
// back byte-exact through both mounts on their original mount points,
// the writers keep working, SRC says it moved, and a dump of PostgreSQL,
// loaded and mounted elsewhere, holds exactly the writers' trees. The
// longest time one operation waited (the pause) is printed.
func TestMigrateMounted(t *testing.T) {
	if os.Getenv("CAIRN_TEST_ENGINE") != "" {
		t.Skip("migrates SQLite to its own PostgreSQL: runs once, in the default pass")
	}
	needMount(t)
	pg := testenv.Postgres(t)
	t.Setenv("META_PASSWORD_DST", pg.Password) // the mounts' way to DST
	migrateMounted(t, metaEngines["sqlite3"](t), pg.URL("postgres"), false)
}

// TestMigrateMountedThroughMount is TestMigrateMounted with 'cairn
// migrate MOUNTPOINT DST-URL': the migration runs inside the first
// mount's process, and the second mount follows as with the URL form.
func TestMigrateMountedThroughMount(t *testing.T) {
	if os.Getenv("CAIRN_TEST_ENGINE") != "" {
		t.Skip("migrates SQLite to its own PostgreSQL: runs once, in the default pass")
	}
	needMount(t)
	pg := testenv.Postgres(t)
	t.Setenv("META_PASSWORD_DST", pg.Password)
	migrateMounted(t, metaEngines["sqlite3"](t), pg.URL("postgres"), true)
}

// TestMigrateMountedRedisToEtcd is TestMigrateMounted from Redis to a
// three-member etcd cluster.
func TestMigrateMountedRedisToEtcd(t *testing.T) {
	if os.Getenv("CAIRN_TEST_ENGINE") != "" {
		t.Skip("migrates Redis to its own etcd: runs once, in the default pass")
	}
	needMount(t)
	src := metaEngines["redis"](t)
	e, err := engines.Open(src)
	must(t, err, "open Redis")
	_, replaces := meta.Capability[meta.InodeReplacer](e)
	e.Close()
	if !replaces {
		t.Skip("the Redis engine of this build cannot take a volume in (no meta.InodeReplacer), so a migration's catch-up cannot run on it yet")
	}
	migrateMounted(t, src, metaEngines["etcd"](t), false)
}

// migrateMounted formats a volume at src, mounts it twice and migrates it
// to dst while both mounts write (see TestMigrateMounted); throughMount:
// 'cairn migrate' is given the first mount's mount point, not src.
func migrateMounted(t *testing.T, src, dst string, throughMount bool) {
	v := &volume{name: "test-vol", meta: src}
	cairnOK(t, append([]string{"format", v.meta, v.name}, trashOff(v.storageArgs(t))...)...)
	v.dir = filepath.Join(tempDir(t), "mnt")
	must(t, os.Mkdir(v.dir, 0o755), "mkdir")
	v.mount(t)
	second := filepath.Join(tempDir(t), "second")
	must(t, os.Mkdir(second, 0o755), "mkdir")
	secondMount := v.mountAt(t, second)

	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	writers := []*migrationWriter{
		{dir: filepath.Join(v.dir, "one"), rand: rand.New(rand.NewPCG(seed, 1)), files: map[string][]byte{}},
		{dir: filepath.Join(second, "two"), rand: rand.New(rand.NewPCG(seed, 2)), files: map[string][]byte{}},
	}
	for _, w := range writers {
		must(t, os.Mkdir(w.dir, 0o755), "mkdir")
		for range 300 {
			must(t, w.step(), "write before the migration")
		}
		w.longest = 0
	}
	stop := make(chan struct{})
	var running sync.WaitGroup
	for _, w := range writers {
		running.Add(1)
		go w.run(stop, &running)
	}
	from := v.meta
	if throughMount {
		from = v.dir
	}
	r := runCairn(t, "migrate", from, dst)
	time.Sleep(500 * time.Millisecond) // the writers go on after the switch
	close(stop)
	running.Wait()
	t.Logf("cairn migrate:\n%s", r.stderr)
	if r.code != 0 {
		t.Fatalf("cairn migrate: exit %d", r.code)
	}
	for _, w := range writers {
		if w.failure != nil {
			t.Errorf("writer in %s: %v", w.dir, w.failure)
		}
	}
	var longest time.Duration
	ops := 0
	for _, w := range writers {
		longest = max(longest, w.longest)
		ops += w.ops
	}
	t.Logf("%d operations; the longest one operation waited during the migration: %v", ops, longest)
	if !strings.Contains(r.stderr, "2 mount(s) follow") {
		t.Errorf("cairn migrate did not report both mounts following")
	}

	// The writers keep working, on PostgreSQL now.
	for _, w := range writers {
		for range 20 {
			if err := w.step(); err != nil {
				t.Fatalf("writer in %s after the migration: %v", w.dir, err)
			}
		}
	}
	for _, mount := range []string{v.dir, second} {
		for _, w := range writers {
			dir := filepath.Join(mount, filepath.Base(w.dir))
			checkWriterTree(t, dir, w.files)
		}
	}
	if r := runCairn(t, "status", v.meta); r.code != 1 || !strings.Contains(r.stderr, "moved to") {
		t.Errorf("status of SRC: exit %d, %q; want it to say the volume moved", r.code, r.stderr)
	}

	// A dump of PostgreSQL holds the writers' trees.
	dumpFile := filepath.Join(tempDir(t), "dst.dump")
	cairnOK(t, "dump", dst, dumpFile)
	copied := &volume{name: v.name, meta: "sqlite3://" + filepath.Join(tempDir(t), "copy.db"), dir: filepath.Join(tempDir(t), "copy")}
	must(t, os.Mkdir(copied.dir, 0o755), "mkdir")
	cairnOK(t, "load", copied.meta, dumpFile)
	copied.mount(t)
	for _, w := range writers {
		checkWriterTree(t, copied.path(filepath.Base(w.dir)), w.files)
	}
	copied.unmount(t)
	if err := secondMount.Unmount(); err != nil {
		t.Errorf("unmount %s: %v", second, err)
	}
	// The directory statistics moved too, with what the mounts flushed
	// while the volume was copied (the second mount flushed at its
	// unmount, the first does before it answers summary).
	var fromStats, counted summaryJSON
	v.inspectOK(t, &fromStats, "summary", v.dir)
	v.inspectOK(t, &counted, "summary", v.dir, "--count")
	if fromStats.Source != "statistics" || fromStats.Counted != 0 {
		t.Errorf("summary after the migration: source %q, %d directories counted; want statistics, none counted", fromStats.Source, fromStats.Counted)
	}
	if fromStats.Space != counted.Space || fromStats.Files != counted.Files || fromStats.Directories != counted.Directories || counted.Files == 0 {
		t.Errorf("summary after the migration from the statistics: %d bytes of space, %d files, %d directories; counted: %d, %d, %d",
			fromStats.Space, fromStats.Files, fromStats.Directories, counted.Space, counted.Files, counted.Directories)
	}
	v.unmount(t)
}

// checkWriterTree checks that dir holds exactly files.
func checkWriterTree(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	must(t, err, "list "+dir)
	var names, want []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	for name := range files {
		want = append(want, name)
	}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("%s holds %d names, the writer's log %d; first differences: %v", dir, len(names), len(want), firstDifferences(names, want))
	}
	bad := 0
	for name, data := range files {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if (err != nil || !bytes.Equal(got, data)) && bad < 5 {
			bad++
			t.Errorf("%s/%s: %d bytes, %v; want the %d bytes fsync'd", dir, name, len(got), err, len(data))
		}
	}
}

func firstDifferences(got, want []string) []string {
	var out []string
	for _, n := range got {
		if !slices.Contains(want, n) && len(out) < 5 {
			out = append(out, "+"+n)
		}
	}
	for _, n := range want {
		if !slices.Contains(got, n) && len(out) < 10 {
			out = append(out, "-"+n)
		}
	}
	return out
}

// TestMigrateKilledWhileMounted: 'cairn migrate' killed with SIGKILL while
// a mount is paused for the switch: the mount's writer waits at most
// about the record's lease, then goes on with SRC, no operation fails;
// a rerun then moves the volume with the mount following, and every
// fsync'd file reads back.
func TestMigrateKilledWhileMounted(t *testing.T) {
	if os.Getenv("CAIRN_TEST_ENGINE") != "" {
		t.Skip("migrates SQLite to its own PostgreSQL: runs once, in the default pass")
	}
	needMount(t)
	pg := testenv.Postgres(t)
	dst := pg.URL("postgres")
	t.Setenv("META_PASSWORD_DST", pg.Password)
	v := formatVolume(t)
	v.mount(t)
	w := &migrationWriter{dir: v.path("w"), rand: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 3)), files: map[string][]byte{}}
	must(t, os.Mkdir(w.dir, 0o755), "mkdir")
	stop := make(chan struct{})
	var running sync.WaitGroup
	running.Add(1)
	go w.run(stop, &running)

	m := startHeldMigration(t, v.meta, dst, "switch", "")
	must(t, m.cmd.Process.Signal(syscall.SIGKILL), "kill cairn migrate")
	m.wait()
	before := w.opsDone()
	if !eventually(30*time.Second, func() bool { return w.opsDone() > before+50 }) {
		t.Fatalf("the writer did not go on within 30 s of the migrator's death (%d operations)", w.opsDone())
	}
	close(stop)
	running.Wait()
	if w.failure != nil {
		t.Fatalf("writer: %v", w.failure)
	}
	t.Logf("killed while the mount was paused: the longest operation waited %v (the lease is %v)", w.longest, migrateLease)
	if st := status(t, v.meta); st.Setting.Name != v.name {
		t.Errorf("status of SRC after the kill: %+v", st)
	}

	stop = make(chan struct{})
	running.Add(1)
	go w.run(stop, &running)
	r := runCairn(t, "migrate", v.meta, dst)
	close(stop)
	running.Wait()
	if r.code != 0 || !strings.Contains(r.stderr, "1 mount(s) follow") {
		t.Fatalf("the rerun: exit %d\n%s", r.code, r.stderr)
	}
	if w.failure != nil {
		t.Fatalf("writer during the rerun: %v", w.failure)
	}
	checkWriterTree(t, w.dir, w.files)
	v.unmount(t)
}
