package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cairn/internal/testenv"
	"cairn/meta"
	"cairn/volume"
)

// formatted is a new SQLite volume's URL.
func formatted(t *testing.T, name string) string {
	t.Helper()
	url := "sqlite3://" + filepath.Join(t.TempDir(), name+".db")
	if code, _, stderr := runCaptured(t, "format", url, name, "--storage", "mem", "-q"); code != 0 {
		t.Fatalf("format: exit %d: %s", code, stderr)
	}
	return url
}

// withChangeLog calls use with the change log of the database at url,
// which it opens for the call only.
func withChangeLog(t *testing.T, url string, use func(meta.ChangeLog) error) {
	t.Helper()
	eng, err := volume.OpenEngine(url)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	log, ok := meta.Capability[meta.ChangeLog](eng)
	if !ok {
		t.Fatalf("the %s engine has no meta.ChangeLog", eng.Name())
	}
	if err := use(log); err != nil {
		t.Fatal(err)
	}
}

// migrationRecord is SRC's migration record (nil: none).
func migrationRecord(t *testing.T, url string) []byte {
	t.Helper()
	var b []byte
	withChangeLog(t, url, func(log meta.ChangeLog) (err error) {
		b, err = log.Migration(context.Background())
		return err
	})
	return b
}

// storedVolumeName is the name of the volume at url, "" when there is none.
func storedVolumeName(t *testing.T, url string) string {
	t.Helper()
	eng, err := volume.OpenEngine(url)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	f, err := eng.Load(context.Background())
	if errors.Is(err, meta.ErrNotFormatted) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return f.Name
}

// errorLine is the one line of a failed command, or a test error.
func errorLine(t *testing.T, args []string, code int, stderr string) string {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if strings.HasPrefix(l, "cairn migrate:") {
			lines = append(lines, l)
		}
	}
	if code != 1 || len(lines) != 1 {
		t.Errorf("cairn %v: exit %d, stderr %q; want exit 1 and one error line", args, code, stderr)
		return ""
	}
	return lines[0]
}

// TestMigrateBadInput: each mistake is one line saying what is wrong,
// and changes nothing: SRC keeps no migration record, DST stays as it was.
func TestMigrateBadInput(t *testing.T) {
	needEngines(t, "sqlite3", "postgres")
	pg := testenv.Postgres(t)
	src := formatted(t, "src")
	other := formatted(t, "other")
	empty := "sqlite3://" + filepath.Join(t.TempDir(), "empty.db")
	srcPath := strings.TrimPrefix(src, "sqlite3://")
	sameFile := "sqlite3://" + filepath.Dir(srcPath) + "/./" + filepath.Base(srcPath)
	copyOfSrc := "sqlite3://" + filepath.Join(t.TempDir(), "copy.db")
	dumpFile := filepath.Join(t.TempDir(), "src.dump")
	if code, _, stderr := runCaptured(t, "dump", src, dumpFile); code != 0 {
		t.Fatal(stderr)
	}
	if code, _, stderr := runCaptured(t, "load", copyOfSrc, dumpFile); code != 0 {
		t.Fatal(stderr)
	}
	closed := fmt.Sprintf("postgres://cairn:pw@127.0.0.1:%d/none?sslmode=disable", testenv.FreePort(t))
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"DST not empty", []string{src, other}, "is not empty"},
		{"DST is SRC", []string{src, src}, "are the same"},
		{"DST is SRC by another path", []string{src, sameFile}, "holds the source volume itself"},
		{"DST a copy of SRC", []string{src, copyOfSrc}, "holds the source volume itself"},
		{"SRC unformatted", []string{empty, pg.URL("postgres")}, "no cairn volume at"},
		{"SRC unreachable", []string{closed, pg.URL("postgres")}, "source"},
		{"DST unreachable", []string{src, closed}, "destination"},
		{"SRC in memory", []string{"mem://", pg.URL("postgres")}, "one process"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"migrate"}, c.args...)
			code, _, stderr := runCaptured(t, args...)
			line := errorLine(t, args, code, stderr)
			t.Log(line)
			if !strings.Contains(line, c.want) {
				t.Errorf("cairn %v: %q, want it to say %q", args, line, c.want)
			}
			if strings.Contains(line, "cairn-test-pw") || strings.Contains(line, ":pw@") {
				t.Errorf("the error line shows a password: %q", line)
			}
		})
	}
	if b := migrationRecord(t, src); b != nil {
		t.Errorf("SRC keeps a migration record after the refusals: %s", b)
	}
	if name := storedVolumeName(t, other); name != "other" {
		t.Errorf("the other volume is now %q", name)
	}
	if name := storedVolumeName(t, pg.URL("postgres")); name != "" {
		t.Errorf("PostgreSQL holds volume %q after the refusals", name)
	}
}

// TestMigrateOlderClient: a mount that never acknowledges the migration
// (a session registered through the engine and kept heartbeating, as a
// cairn without migrations does) makes migrate refuse within
// --ack-timeout, naming it; SRC keeps no record, DST stays empty.
func TestMigrateOlderClient(t *testing.T) {
	needEngines(t, "sqlite3", "postgres")
	pg := testenv.Postgres(t)
	src := formatted(t, "src")
	eng, err := volume.OpenEngine(src)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	ctx := t.Context()
	sid, err := eng.NewSession(ctx, meta.SessionInfo{Hostname: "old-box", PID: 777, MountPoint: "/mnt/old", Version: "0.8.0"})
	if err != nil {
		t.Fatal(err)
	}
	beating, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		for beating.Err() == nil {
			eng.Heartbeat(beating, sid)
			time.Sleep(50 * time.Millisecond)
		}
	}()
	args := []string{"migrate", src, pg.URL("postgres"), "--ack-timeout", "1s"}
	code, _, stderr := runCaptured(t, args...)
	line := errorLine(t, args, code, stderr)
	t.Log(line)
	if !strings.Contains(line, "session 1 on old-box, pid 777, mounted at /mnt/old, version 0.8.0") {
		t.Errorf("%q does not name the older client", line)
	}
	if b := migrationRecord(t, src); b != nil {
		t.Errorf("SRC keeps a migration record after the refusal: %s", b)
	}
	if name := storedVolumeName(t, pg.URL("postgres")); name != "" {
		t.Errorf("PostgreSQL holds volume %q after the refusal", name)
	}
}

// TestMigrateDestinationPassword: DST's password comes from
// META_PASSWORD_DST, SRC's stays in META_PASSWORD; the migration of an
// unmounted volume completes, says so stage by stage when piped, and
// leaves SRC moved.
func TestMigrateDestinationPassword(t *testing.T) {
	needEngines(t, "sqlite3", "postgres")
	pg := testenv.Postgres(t)
	src := formatted(t, "src")
	dst := fmt.Sprintf("postgres://%s@127.0.0.1:%d/postgres?sslmode=disable", pg.User, pg.Port)
	t.Setenv("META_PASSWORD", "not-this-one")
	t.Setenv(volume.DestinationPasswordEnv, pg.Password)
	code, _, stderr := runCaptured(t, "migrate", src, dst)
	if code != 0 {
		t.Fatalf("migrate: exit %d: %s", code, stderr)
	}
	t.Log(stderr)
	for _, want := range []string{"0 mount(s) track", "copied the volume", "caught up: 1 round(s)", "switched: mounts paused"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("migrate's lines lack %q:\n%s", want, stderr)
		}
	}
	code, _, stderr = runCaptured(t, "status", src)
	if code == 0 || !strings.Contains(stderr, "moved to "+strings.Replace(dst, pg.User+"@", pg.User+"@", 1)) {
		t.Errorf("status of SRC after the migration: exit %d, %q; want moved to %s", code, stderr, dst)
	}
	code, _, stderr = runCaptured(t, "migrate", src, dst)
	if line := errorLine(t, []string{"migrate again"}, code, stderr); !strings.Contains(line, "moved to") {
		t.Errorf("a rerun after the switch: %q, want it to say where the volume moved", line)
	}
	os.Unsetenv("META_PASSWORD")
	t.Setenv("META_PASSWORD", pg.Password)
	if name := storedVolumeName(t, dst); name != "src" {
		t.Errorf("PostgreSQL holds volume %q, want src", name)
	}

	// -q: nothing but errors.
	pg.SQL(t, "postgres", "CREATE DATABASE quiet")
	quietSrc := formatted(t, "quiet")
	code, stdout, stderr := runCaptured(t, "migrate", quietSrc, pg.URL("quiet"), "-q")
	if code != 0 || stdout != "" || stderr != "" {
		t.Errorf("migrate -q: exit %d, stdout %q, stderr %q; want silence", code, stdout, stderr)
	}
}
