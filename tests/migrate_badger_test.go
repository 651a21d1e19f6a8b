package tests

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"cairn/internal/testenv"
	"cairn/meta/engines"
)

// helperMigrationWriter is the helper command "migrationwriter DIR SEED
// STREAM LOG": a migrationWriter in DIR, run until its stdin closes,
// appending a line to LOG for each operation that returned. It prints
// "ok OPS", or the failure.
func helperMigrationWriter(args []string) int {
	if len(args) != 4 {
		fmt.Println("usage: helper migrationwriter DIR SEED STREAM LOG")
		return 2
	}
	seed, err1 := strconv.ParseUint(args[1], 10, 64)
	stream, err2 := strconv.ParseUint(args[2], 10, 64)
	log, err3 := os.OpenFile(args[3], os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			fmt.Println(err)
			return 2
		}
	}
	defer log.Close()
	w := &migrationWriter{dir: args[0], rand: rand.New(rand.NewPCG(seed, stream)), files: map[string][]byte{}, log: log}
	stop := make(chan struct{})
	go func() {
		io.Copy(io.Discard, os.Stdin)
		close(stop)
	}()
	var running sync.WaitGroup
	running.Add(1)
	w.run(stop, &running)
	if w.failure != nil {
		fmt.Printf("failed: %v\n", w.failure)
		return 1
	}
	fmt.Printf("ok %d\n", w.ops)
	return 0
}

// writerProcess is a migrationwriter helper running on a mount.
type writerProcess struct {
	dir, log string
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	out      strings.Builder
}

// startWriter starts a writer process in dir (which it creates).
func startWriter(t *testing.T, dir string, seed, stream uint64) *writerProcess {
	t.Helper()
	needBinary(t)
	must(t, os.Mkdir(dir, 0o755), "mkdir "+dir)
	w := &writerProcess{dir: dir, log: filepath.Join(tempDir(t), fmt.Sprintf("writer%d.log", stream))}
	w.cmd = helperCmd(nil, "migrationwriter", dir, fmt.Sprint(seed), fmt.Sprint(stream), w.log)
	w.cmd.Stdout, w.cmd.Stderr = &w.out, &w.out
	var err error
	w.stdin, err = w.cmd.StdinPipe()
	must(t, err, "stdin pipe")
	must(t, w.cmd.Start(), "start a writer")
	t.Cleanup(func() { w.stdin.Close(); w.cmd.Wait() })
	return w
}

// logged is how many operations the writer has logged so far.
func (w *writerProcess) logged() int {
	data, _ := os.ReadFile(w.log)
	return strings.Count(string(data), "\n")
}

// stop ends the writer, failing the test if one of its operations
// failed.
func (w *writerProcess) stop(t *testing.T) {
	t.Helper()
	w.stdin.Close()
	err := w.cmd.Wait()
	if out := strings.TrimSpace(w.out.String()); err != nil || !strings.HasPrefix(out, "ok ") {
		t.Errorf("writer in %s: %v: %s", w.dir, err, out)
	}
}

// writerLog replays a writer's log: every file whose fsync returned, with
// its content, under the name its last rename gave it.
func writerLog(t *testing.T, path string) map[string][]byte {
	files, _ := replayWriterLog(t, path)
	return files
}

// loggedOperation is when an operation of a writer's log ran.
type loggedOperation struct {
	started  time.Time
	duration time.Duration
}

// replayWriterLog is writerLog, and when each operation ran.
func replayWriterLog(t *testing.T, path string) (map[string][]byte, []loggedOperation) {
	t.Helper()
	f, err := os.Open(path)
	must(t, err, "open a writer's log")
	defer f.Close()
	files := map[string][]byte{}
	var ops []loggedOperation
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			t.Fatalf("%s: short line %q", path, sc.Text())
		}
		started, err1 := strconv.ParseInt(fields[len(fields)-2], 10, 64)
		took, err2 := strconv.ParseInt(fields[len(fields)-1], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: no times in %q", path, sc.Text())
		}
		ops = append(ops, loggedOperation{started: time.Unix(0, started), duration: time.Duration(took)})
		var a, b string
		var seed uint64
		var size int
		switch line := sc.Text(); {
		case strings.HasPrefix(line, "create "):
			_, err = fmt.Sscanf(line, "create %s %d %d", &a, &seed, &size)
			files[a] = pattern(seed, size)
		case strings.HasPrefix(line, "rename "):
			_, err = fmt.Sscanf(line, "rename %s %s", &a, &b)
			files[b] = files[a]
			delete(files, a)
		case strings.HasPrefix(line, "delete "):
			_, err = fmt.Sscanf(line, "delete %s", &a)
			delete(files, a)
		default:
			t.Fatalf("%s: unknown line %q", path, line)
		}
		must(t, err, "read "+path)
	}
	must(t, sc.Err(), "read "+path)
	return files, ops
}

// longestDuring is the longest of ops that ran, at least in part, within
// [from, to], and the longest of the others.
func longestDuring(ops []loggedOperation, from, to time.Time) (during, outside time.Duration) {
	for _, op := range ops {
		if op.started.Before(to) && op.started.Add(op.duration).After(from) {
			during = max(during, op.duration)
		} else {
			outside = max(outside, op.duration)
		}
	}
	return during, outside
}

// migrateFilesEnv, set to N, has TestMigrateMountedBadger write N more
// files before the migration: how the README measures the wait on a
// bigger volume.
const migrateFilesEnv = "CAIRN_MIGRATE_BADGER_FILES"

// TestMigrateMountedBadger: a Badger volume, which only its mount may
// open, moves to MariaDB through 'cairn migrate MOUNTPOINT DST-URL' while
// two writer processes create, write, fsync, rename and delete files on
// the mount. Attempts whose command is killed during the catch-up, or
// while the mount is paused for the switch, or which lose MariaDB during
// the copy, leave the volume on Badger and the writers going (the last
// says so in one line); the rerun moves it,
// with the mount following on DST's password, which only the command
// had. Afterwards no operation failed, every fsync'd file reads back
// byte-exact through the same mount, the writers keep working, the
// mount's session is on MariaDB, a dump of MariaDB holds exactly the
// trees the writers' logs describe, and Badger says the volume moved.
func TestMigrateMountedBadger(t *testing.T) {
	if engineName() != "badger" {
		t.Skip("migrates a mounted Badger volume: runs in the Badger pass (CAIRN_TEST_ENGINE=badger)")
	}
	needMount(t)
	db := testenv.MariaDB(t)
	db.SQL(t, "CREATE DATABASE cairn")
	dst := engines.WithoutPassword(db.URL("cairn"))
	v := &volume{name: "test-vol", meta: newMetaURL(t)}
	cairnOK(t, append([]string{"format", v.meta, v.name}, trashOff(v.storageArgs(t))...)...)
	v.dir = filepath.Join(tempDir(t), "mnt")
	must(t, os.Mkdir(v.dir, 0o755), "mkdir")
	v.mount(t)
	// Set once the mount runs: the command has DST's password, the mount
	// does not.
	t.Setenv("META_PASSWORD_DST", db.Password)

	if n, _ := strconv.Atoi(os.Getenv(migrateFilesEnv)); n > 0 {
		// A bigger volume, for the README's measurement.
		must(t, os.Mkdir(v.path("bulk"), 0o755), "mkdir")
		for i := range n {
			writeFile(t, v.path("bulk", fmt.Sprintf("%d", i)), pattern(uint64(i), 1000))
		}
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	writers := []*writerProcess{startWriter(t, v.path("one"), seed, 1), startWriter(t, v.path("two"), seed, 2)}
	goneOn := func(n int) {
		t.Helper()
		var want []int
		for _, w := range writers {
			want = append(want, w.logged()+n)
		}
		for i, w := range writers {
			if !eventually(time.Minute, func() bool { return w.logged() >= want[i] }) {
				t.Fatalf("the writer in %s did not do %d more operations within a minute; its output: %s", w.dir, n, w.out.String())
			}
		}
	}
	goneOn(200)

	// Attempts that end with the volume on Badger: the command killed
	// during the catch-up, and while the mount is paused for the switch;
	// MariaDB lost during the copy.
	ended := 0
	endedOnBadger := func(how string) {
		t.Helper()
		ended++
		if !eventually(time.Minute, func() bool {
			return strings.Count(v.mnt.Output(), "the migration ended without moving the volume") >= ended
		}) {
			t.Fatalf("the mount did not end the migration %s; its output:\n%s", how, v.mnt.Output())
		}
		goneOn(50)
	}
	for _, stage := range []string{"catch-up", "switch"} {
		m := startHeldMigration(t, v.dir, dst, stage, "")
		must(t, m.cmd.Process.Signal(syscall.SIGKILL), "kill cairn migrate")
		m.wait()
		endedOnBadger("whose command was killed at " + stage)
		if stage == "switch" && !strings.Contains(m.stderr.String(), "removed the unfinished copy an earlier attempt left") {
			t.Errorf("the attempt after one killed in the catch-up did not replace its copy:\n%s", m.stderr.String())
		}
	}
	lost := filepath.Join(tempDir(t), "lost")
	m := startHeldMigration(t, v.dir, dst, "copy", lost)
	db.Kill()
	must(t, os.WriteFile(lost, nil, 0o644), "let the migration go on")
	code := m.wait()
	lines := strings.Split(strings.TrimSpace(m.stderr.String()), "\n")
	if code != 1 || !strings.HasPrefix(lines[len(lines)-1], "cairn migrate: ") || !strings.Contains(lines[len(lines)-1], "stays on "+v.meta) {
		t.Errorf("cairn migrate without its MariaDB: exit %d, want 1 and a line saying the volume stays on Badger:\n%s", code, m.stderr.String())
	}
	db.Start()
	endedOnBadger("whose MariaDB went away")

	migrating := time.Now()
	r := runCairn(t, "migrate", v.dir, dst)
	migrated := time.Now()
	t.Logf("cairn migrate:\n%s", r.stderr)
	if r.code != 0 {
		t.Fatalf("cairn migrate %s: exit %d", v.dir, r.code)
	}
	if !strings.Contains(r.stderr, "1 mount(s) follow") {
		t.Errorf("cairn migrate did not say the mount follows")
	}
	if strings.Contains(r.stderr+v.mnt.Output(), db.Password) {
		t.Errorf("the command or the mount shows DST's password:\n%s\n%s", r.stderr, v.mnt.Output())
	}
	goneOn(50) // on MariaDB now
	wantUserError(t, runCairn(t, "migrate", v.dir, "sqlite3://"+filepath.Join(tempDir(t), "again.db")), "followed its volume", "remount it from there", "nothing was changed")
	for _, w := range writers {
		w.stop(t)
	}
	var during, outside time.Duration
	for _, w := range writers {
		files, ops := replayWriterLog(t, w.log)
		checkWriterTree(t, w.dir, files)
		d, o := longestDuring(ops, migrating, migrated)
		during, outside = max(during, d), max(outside, o)
	}
	t.Logf("the longest one operation of the writers: %v while 'cairn migrate' ran, %v before and after", during, outside)
	if st := status(t, db.URL("cairn")); len(st.Sessions) != 1 || st.Sessions[0].MountPoint != v.dir {
		t.Errorf("the sessions on MariaDB: %+v, want the mount at %s", st.Sessions, v.dir)
	}
	dumpFile := filepath.Join(tempDir(t), "dst.dump")
	cairnOK(t, "dump", db.URL("cairn"), dumpFile)
	copied := &volume{name: v.name, meta: "sqlite3://" + filepath.Join(tempDir(t), "copy.db"), dir: filepath.Join(tempDir(t), "copy")}
	must(t, os.Mkdir(copied.dir, 0o755), "mkdir")
	cairnOK(t, "load", copied.meta, dumpFile)
	copied.mount(t)
	for _, w := range writers {
		checkWriterTree(t, copied.path(filepath.Base(w.dir)), writerLog(t, w.log))
	}
	copied.unmount(t)
	v.unmount(t)
	if r := runCairn(t, "status", v.meta); r.code != 1 || !strings.Contains(r.stderr, "moved to") {
		t.Errorf("status of Badger: exit %d, %q; want it to say the volume moved", r.code, r.stderr)
	}
}

// TestMigrateMountedRefusals: 'cairn migrate PATH DST-URL' refuses, in
// one line and changing nothing, a PATH on no cairn mount, a DST that
// holds another volume, DST the mount's own database and a user who is
// neither root nor the mount's owner; 'cairn migrate badger://DIR
// DST-URL' while DIR is mounted names the mount point to give instead.
// The mount never started tracking, its files are as they were, and the
// other volume too.
func TestMigrateMountedRefusals(t *testing.T) {
	if engineName() != "badger" {
		t.Skip("migrates a mounted Badger volume: runs in the Badger pass (CAIRN_TEST_ENGINE=badger)")
	}
	needMount(t)
	v := formatVolume(t)
	v.mount(t)
	data := pattern(7, 10000)
	writeFile(t, v.path("kept"), data)
	other := &volume{name: "other-vol", meta: "sqlite3://" + filepath.Join(tempDir(t), "other.db")}
	cairnOK(t, append([]string{"format", other.meta, other.name}, other.storageArgs(t)...)...)
	empty := "sqlite3://" + filepath.Join(tempDir(t), "empty.db")

	wantUserError(t, runCairn(t, "migrate", tempDir(t), empty), "not inside a cairn mount", "nothing was changed")
	wantUserError(t, runCairn(t, "migrate", v.dir, other.meta), "the destination is not empty", "other-vol", "nothing was changed")
	wantUserError(t, runCairn(t, "migrate", v.path("kept"), v.meta), "already lives at", "nothing was changed")
	wantUserError(t, runCairn(t, "migrate", v.dir, "mysql://cairn@(127.0.0.1:1)/cairn"), "cannot reach the mysql server", "nothing was changed")
	wantUserError(t, runAs(t, nobody, cairnBin, "migrate", v.dir, empty), "only root or the mount's owner", "nothing was changed")
	wantUserError(t, runCairn(t, "migrate", v.meta, empty), "is mounted at "+v.dir, "cairn migrate "+v.dir+" "+empty)

	if strings.Contains(v.mnt.Output(), "tracking changes for a migration") {
		t.Errorf("a refused migration made the mount track its changes; its output:\n%s", v.mnt.Output())
	}
	wantContent(t, v.path("kept"), data)
	writeFile(t, v.path("after"), data)
	wantContent(t, v.path("after"), data)
	if st := status(t, other.meta); st.Setting.Name != other.name {
		t.Errorf("the volume in the refused DST: %+v", st.Setting)
	}
	if _, err := os.Stat(strings.TrimPrefix(empty, "sqlite3://")); err == nil {
		t.Errorf("a refused migration created %s", empty)
	}
}
