package tests

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"cairn/internal/testenv"
	"cairn/meta"
	"cairn/meta/engines"
	"cairn/migrate"
)

// TestMountFollowsMigration: a real mount follows a migration of its
// volume to PostgreSQL that the test drives with package migrate (the
// migrator's part, as 'cairn migrate' runs it): the mount takes DST's
// password from META_PASSWORD_DST, a file written before, during and
// after the migration reads back, a file unlinked while open still reads
// through its descriptor, a flock taken before the switch still holds
// after it, a shell whose current directory is inside the mount goes on
// working there, new files land on DST and SRC stays as it was at the
// switch.
func TestMountFollowsMigration(t *testing.T) {
	needMount(t)
	if singleProcess() {
		t.Skipf("the %s engine serves one process at a time: the migrator cannot read it beside the mount", engineName())
	}
	ctx := t.Context()
	v := formatVolume(t)
	pg := testenv.Postgres(t)
	pg.SQL(t, "postgres", "CREATE DATABASE follow")
	dstURL := pg.URL("follow")
	open := func(url string) meta.Engine {
		e, err := engines.Open(url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	src, dst := open(v.meta), open(dstURL)
	log, ok := meta.Capability[meta.ChangeLog](src)
	if !ok {
		t.Skipf("the %s engine keeps no change log", src.Name())
	}
	var record []byte
	setPhase := func(phase string) {
		next := meta.EncodeMigration(meta.MigrationRecord{ID: "mount", Destination: engines.WithoutPassword(dstURL), Phase: phase, Deadline: time.Now().Add(time.Hour)})
		if err := log.SwapMigration(ctx, record, next); err != nil {
			t.Fatal(err)
		}
		record = next
	}
	acked := func(ack uint64) {
		t.Helper()
		for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
			changes, err := log.Changes(ctx, 0, 100000)
			if err != nil {
				t.Fatal(err)
			}
			if slices.ContainsFunc(changes, func(c meta.Change) bool { return c.Kind == meta.ChangeAck && c.Operation == ack }) {
				return
			}
			if time.Since(start) > time.Minute {
				t.Fatalf("after a minute, the mount has not acknowledged %d; its output:\n%s", ack, v.mnt.Output())
			}
		}
	}
	// Announced before the mount starts, so that it sees the record at
	// once (a running mount reads it on its heartbeat, 10 s).
	setPhase(meta.MigrationTracking)
	t.Setenv("META_PASSWORD_DST", pg.Password)
	v.mount(t, "--backup-meta", "1s")
	acked(meta.MigrationAckTracking)
	before := pattern(1, 300<<10)
	writeFile(t, v.path("before"), before)
	// A lock and a shell's current directory, from before the migration.
	locked, err := os.OpenFile(v.path("before"), os.O_RDWR, 0)
	must(t, err, "open before")
	defer locked.Close()
	must(t, syscall.Flock(int(locked.Fd()), syscall.LOCK_EX), "flock before")
	must(t, os.Mkdir(v.path("work"), 0o755), "mkdir work")
	shell := exec.Command("sh", "-c", "read go; ls; echo from-cwd > made-in-cwd; ls")
	shell.Dir = v.path("work")
	goOn, err := shell.StdinPipe()
	must(t, err, "the shell's stdin")
	var shellOut strings.Builder
	shell.Stdout, shell.Stderr = &shellOut, &shellOut
	must(t, shell.Start(), "start a shell in the mount")
	defer shell.Process.Kill()
	writeFile(t, v.path("work", "old"), []byte("old"))
	position, err := log.ChangesEnd(ctx)
	must(t, err, "read the end of the change log")
	must(t, migrate.BulkCopy(ctx, src, dst, nil), "bulk copy")
	during := pattern(2, 100<<10)
	writeFile(t, v.path("during"), during)
	held, err := os.OpenFile(v.path("held"), os.O_CREATE|os.O_RDWR, 0o644)
	must(t, err, "create held")
	defer held.Close()
	kept := pattern(3, 50<<10)
	_, err = held.Write(kept)
	must(t, err, "write held")
	must(t, held.Sync(), "fsync held")
	must(t, os.Remove(v.path("held")), "unlink held while open")
	position, _, err = migrate.CatchUpRound(ctx, src, dst, log, position)
	must(t, err, "catch-up round")
	setPhase(meta.MigrationPausing)
	acked(meta.MigrationAckPaused)
	_, err = migrate.Finish(ctx, src, dst, log, position, func(context.Context) error {
		setPhase(meta.MigrationSwitched)
		return nil
	})
	must(t, err, "finish")
	acked(meta.MigrationAckSwitched)
	atSwitch := rootNames(t, src)

	after := pattern(4, 200<<10)
	writeFile(t, v.path("after"), after) // waits for the mount to resume on DST
	wantContent(t, v.path("before"), before)
	wantContent(t, v.path("during"), during)
	wantContent(t, v.path("after"), after)
	got := make([]byte, len(kept))
	if _, err := held.ReadAt(got, 0); err != nil || !slices.Equal(got, kept) {
		t.Errorf("read the file unlinked while open, after the switch: %v (same bytes: %v)", err, slices.Equal(got, kept))
	}
	// The lock taken before the switch still keeps another one out, and
	// lets it in once dropped.
	other, err := os.OpenFile(v.path("before"), os.O_RDWR, 0)
	must(t, err, "open before again")
	defer other.Close()
	if err := syscall.Flock(int(other.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); !errors.Is(err, syscall.EWOULDBLOCK) {
		t.Errorf("flock against the one taken before the switch: %v, want EWOULDBLOCK", err)
	}
	must(t, syscall.Flock(int(locked.Fd()), syscall.LOCK_UN), "unlock after the switch")
	must(t, syscall.Flock(int(other.Fd()), syscall.LOCK_EX|syscall.LOCK_NB), "flock once the first was dropped")
	// The shell, in the mount since before the migration, lists and
	// creates there.
	_, err = goOn.Write([]byte("go\n"))
	must(t, err, "tell the shell to go on")
	if err := shell.Wait(); err != nil {
		t.Errorf("the shell in the mount after the switch: %v\n%s", err, shellOut.String())
	}
	if out := shellOut.String(); !strings.Contains(out, "old") || !strings.Contains(out, "made-in-cwd") {
		t.Errorf("the shell in the mount after the switch printed %q", out)
	}
	wantContent(t, v.path("work", "made-in-cwd"), []byte("from-cwd\n"))
	if names := rootNames(t, dst); !slices.Contains(names, "after") || !slices.Contains(names, "during") {
		t.Errorf("DST's root after the switch: %v", names)
	}
	if names := rootNames(t, src); !slices.Equal(names, atSwitch) {
		t.Errorf("SRC changed after the switch: %v, then %v", atSwitch, names)
	}
	// The mount's backups follow the volume: one begun after the switch
	// is DST's, with the file written after it.
	if storageName() == "file" {
		switched := time.Now()
		var key string
		if !eventually(20*time.Second, func() bool {
			for _, k := range backupKeys(t, v.bucket) {
				if taken, err := time.Parse("dump-20060102-150405.bin.gz", k); err == nil && taken.After(switched) {
					key = k
					return true
				}
			}
			return false
		}) {
			t.Fatalf("no backup begun after the switch in 20 s (found %v); mount output:\n%s", backupKeys(t, v.bucket), v.mnt.Output())
		}
		loaded := newMetaURL(t)
		cairnOK(t, "load", loaded, filepath.Join(v.bucket, "meta", key))
		if names := rootNames(t, open(loaded)); !slices.Contains(names, "after") {
			t.Errorf("the backup %s, begun after the switch, holds %v: not the volume on DST", key, names)
		}
	}
	must(t, held.Close(), "close held")
	must(t, locked.Close(), "close the locked file")
	must(t, other.Close(), "close the file locked after the switch")
	v.unmount(t)
}

// rootNames lists the root directory of e.
func rootNames(t *testing.T, e meta.Engine) []string {
	t.Helper()
	entries, err := e.Readdir(context.Background(), meta.RootIno, "", 1<<20, false)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ent := range entries {
		names = append(names, ent.Name)
	}
	return names
}
