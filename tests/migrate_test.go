package tests

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"cairn/internal/testenv"
	"cairn/meta"
	"cairn/meta/engines"
)

// migrationRecord is the migration record of the volume at url (nil:
// none), read through the engine.
func migrationRecord(t *testing.T, url string) []byte {
	t.Helper()
	e, err := engines.Open(url)
	must(t, err, "open "+url)
	defer e.Close()
	log, ok := meta.Capability[meta.ChangeLog](e)
	if !ok {
		t.Fatalf("%s has no change log", e.Name())
	}
	b, err := log.Migration(t.Context())
	must(t, err, "read the migration record")
	return b
}

// migrateLease is the record's lease the migrations of these tests use
// (see cmd/cairn/migrate.go's test hooks): a rerun after a kill waits
// that long at most.
const migrateLease = 2 * time.Second

// heldMigration is a 'cairn migrate' process stopped at a stage.
type heldMigration struct {
	cmd    *exec.Cmd
	lines  chan string
	stderr strings.Builder
	done   chan struct{}
}

// startHeldMigration runs 'cairn migrate SRC DST' until it says it holds
// at stage (until: a file whose creation lets it go on; "" holds until
// killed).
func startHeldMigration(t *testing.T, src, dst, stage, until string) *heldMigration {
	t.Helper()
	hold := stage
	if until != "" {
		hold += ":" + until
	}
	m := &heldMigration{cmd: exec.Command(cairnBin, "migrate", src, dst), lines: make(chan string, 100), done: make(chan struct{})}
	m.cmd.Env = append(os.Environ(), "CAIRN_MIGRATE_TEST_HOLD="+hold, "CAIRN_MIGRATE_TEST_LEASE="+migrateLease.String())
	pipe, err := m.cmd.StderrPipe()
	must(t, err, "stderr pipe")
	must(t, m.cmd.Start(), "start cairn migrate")
	t.Cleanup(func() { m.cmd.Process.Kill(); <-m.done })
	go func() {
		defer close(m.done)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			m.stderr.WriteString(sc.Text() + "\n")
			select {
			case m.lines <- sc.Text():
			default:
			}
		}
		io.Copy(io.Discard, pipe)
		m.cmd.Wait()
	}()
	want := "holding at " + stage
	for {
		select {
		case line := <-m.lines:
			if line == want {
				return m
			}
		case <-m.done:
			t.Fatalf("cairn migrate ended before %q:\n%s", want, m.stderr.String())
		case <-time.After(60 * time.Second):
			t.Fatalf("cairn migrate never said %q", want)
		}
	}
}

// wait returns the exit status once the process ends.
func (m *heldMigration) wait() int {
	<-m.done
	return m.cmd.ProcessState.ExitCode()
}

// TestMigrateKilled: 'cairn migrate' SQLite → PostgreSQL loses its
// PostgreSQL during the bulk copy, is interrupted (SIGINT) between two
// catch-up rounds, then is killed with SIGKILL during the copy, the
// catch-up and the switch. After each, the volume mounts on
// SRC with every file as it was, takes new files, and the next run
// starts over; killed right after the switch was written, the volume is
// on PostgreSQL with every file, SRC says it moved, and a rerun says
// where.
func TestMigrateKilled(t *testing.T) {
	if os.Getenv("CAIRN_TEST_ENGINE") != "" {
		t.Skip("migrates SQLite to its own PostgreSQL: runs once, in the default pass")
	}
	needMount(t)
	v := formatVolume(t)
	v.mount(t)
	populate(t, v)
	want := snapshot(t, v.dir)
	v.unmount(t)
	pg := testenv.Postgres(t)
	dst := pg.URL("postgres")

	// SRC keeps working after each failure, and takes a new file.
	stillOnSource := func(step string) {
		t.Helper()
		v.mount(t)
		sameTree(t, step, snapshot(t, v.dir), want)
		writeFile(t, v.path("after-"+step), pattern(uint64(len(step)), 70000))
		want = snapshot(t, v.dir)
		v.unmount(t)
	}

	// DST lost mid-way.
	goOn := filepath.Join(tempDir(t), "go-on")
	m := startHeldMigration(t, v.meta, dst, "copy", goOn)
	pg.Stop()
	must(t, os.WriteFile(goOn, nil, 0o644), "let the migration go on")
	if code := m.wait(); code != 1 || strings.Count(strings.TrimSpace(m.stderr.String()), "\ncairn migrate:") != 1 {
		t.Errorf("migrate with PostgreSQL gone: exit %d, stderr:\n%s\nwant exit 1 and one error line", code, m.stderr.String())
	}
	if !strings.Contains(m.stderr.String(), "the volume stays on") {
		t.Errorf("migrate with PostgreSQL gone does not say where the volume is:\n%s", m.stderr.String())
	}
	t.Logf("migrate with PostgreSQL gone:\n%s", m.stderr.String())
	if record := migrationRecord(t, v.meta); record != nil {
		t.Errorf("SRC keeps the migration record after the failure: %s", record)
	}
	if st := status(t, v.meta); st.Setting.Name != v.name {
		t.Errorf("status of SRC after the failed migration: %+v", st)
	}
	stillOnSource("lost")
	pg.Start()

	// Ctrl-C between two catch-up rounds.
	goOn = filepath.Join(tempDir(t), "go-on-after-interrupt")
	m = startHeldMigration(t, v.meta, dst, "catch-up", goOn)
	must(t, m.cmd.Process.Signal(syscall.SIGINT), "interrupt cairn migrate")
	must(t, os.WriteFile(goOn, nil, 0o644), "let the migration go on")
	if code := m.wait(); code != 1 || !strings.Contains(m.stderr.String(), "cairn migrate: interrupted: the volume stays on") {
		t.Errorf("interrupted migrate: exit %d, stderr:\n%s", code, m.stderr.String())
	}
	if record := migrationRecord(t, v.meta); record != nil {
		t.Errorf("SRC keeps the migration record after the interrupt: %s", record)
	}
	stillOnSource("interrupted")

	for _, stage := range []string{"copy", "catch-up", "switch"} {
		m := startHeldMigration(t, v.meta, dst, stage, "")
		killedAt := time.Now()
		must(t, m.cmd.Process.Signal(syscall.SIGKILL), "kill cairn migrate")
		m.wait()
		stillOnSource("killed-at-" + stage)
		time.Sleep(time.Until(killedAt.Add(migrateLease))) // the dead migrator's record expires
	}

	m = startHeldMigration(t, v.meta, dst, "switched", "")
	must(t, m.cmd.Process.Signal(syscall.SIGKILL), "kill cairn migrate")
	m.wait()
	for _, args := range [][]string{{"status", v.meta}, {"migrate", v.meta, dst}} {
		r := runCairn(t, args...)
		if r.code != 1 || !strings.Contains(r.stderr, "moved to "+strings.Replace(dst, ":"+pg.Password, "", 1)) {
			t.Errorf("cairn %s after the switch: exit %d, %q; want it to say where the volume moved", args[0], r.code, r.stderr)
		}
	}
	moved := &volume{name: v.name, meta: dst, dir: v.dir}
	moved.mount(t)
	sameTree(t, "on PostgreSQL", snapshot(t, moved.dir), want)
	moved.unmount(t)
}
