package main

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"cairn/inspect"
	"cairn/meta"
)

// TestMovedVolumeRefused: format, status and fsck of a volume a migration
// moved elsewhere say where it went, in one line, and change nothing.
func TestMovedVolumeRefused(t *testing.T) {
	needEngines(t, "sqlite3")
	metaURL := formatted(t, "src")
	setMigration(t, metaURL, meta.MigrationSwitched)
	for _, args := range [][]string{
		{"format", metaURL, "again", "--storage", "mem"},
		{"status", metaURL},
		{"fsck", metaURL},
	} {
		code, _, stderr := runCaptured(t, args...)
		line := strings.TrimSpace(stderr)
		if code == 0 || !strings.Contains(line, "moved to postgres://db.example/vol") || strings.Count(line, "\n") != 0 {
			t.Errorf("cairn %v: exit %d, stderr %q; want one line saying where the volume moved", args, code, stderr)
		}
	}
}

// setMigration writes a migration record to postgres://db.example/vol in
// phase into the volume at metaURL, in place of the one there.
func setMigration(t *testing.T, metaURL, phase string) {
	t.Helper()
	next := meta.EncodeMigration(meta.MigrationRecord{ID: "m", Destination: "postgres://db.example/vol", Phase: phase, Deadline: time.Now().Add(time.Hour)})
	withChangeLog(t, metaURL, func(log meta.ChangeLog) error {
		old, err := log.Migration(context.Background())
		if err != nil {
			return err
		}
		return log.SwapMigration(context.Background(), old, next)
	})
}

// TestMigratingVolumeWrites: while a migration switches (phase pausing),
// every command that writes the volume's database outside a mount refuses
// in one line naming the destination and changes nothing; while it
// tracks, quota set goes on (the switch copies quotas) and the commands
// whose changes only the bulk copy would carry refuse.
func TestMigratingVolumeWrites(t *testing.T) {
	needEngines(t, "sqlite3")
	metaURL := formatted(t, "src")
	read := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := runCaptured(t, args...)
		if code != 0 {
			t.Fatalf("cairn %v: exit %d: %s", args, code, stderr)
		}
		return stdout
	}
	var settings meta.Format
	if err := json.Unmarshal([]byte(read("config", metaURL)), &settings); err != nil {
		t.Fatal(err)
	}
	refused := func(phase string, writes [][]string) {
		t.Helper()
		before := read("config", metaURL) + read("quota", "list", metaURL)
		for _, args := range writes {
			code, _, stderr := runCaptured(t, args...)
			line := strings.TrimSpace(stderr)
			if code == 0 || !strings.Contains(line, "moving this volume to postgres://db.example/vol: nothing was changed") || strings.Count(line, "\n") != 0 {
				t.Errorf("%s: cairn %v: exit %d, stderr %q; want one line naming the destination", phase, args, code, stderr)
			}
		}
		if after := read("config", metaURL) + read("quota", "list", metaURL); after != before {
			t.Errorf("%s: the volume changed: %q, was %q", phase, after, before)
		}
	}
	volumeWrites := [][]string{
		{"config", metaURL, "--capacity", "1G"},
		{"fsck", metaURL, "--repair"},
		{"restore", metaURL, ".trash/2026-01-02-03"},
		{"destroy", metaURL, settings.UUID},
	}

	setMigration(t, metaURL, meta.MigrationTracking)
	read("quota", "set", metaURL, "--path", "/", "--inodes", "100")
	if quotas := read("quota", "list", metaURL); !strings.Contains(quotas, "of 100") {
		t.Errorf("quota set while tracking: quota list says %q", quotas)
	}
	refused(meta.MigrationTracking, volumeWrites)

	setMigration(t, metaURL, meta.MigrationPausing)
	refused(meta.MigrationPausing, append([][]string{
		{"quota", "set", metaURL, "--path", "/", "--inodes", "5"},
		{"quota", "delete", metaURL, "--path", "/"},
		{"quota", "check", metaURL, "--path", "/", "--repair"},
	}, volumeWrites...))
}

// TestChangeBesideMigrating: rmr and clone beside a mount without a
// control channel (an older release) change the tree with a client
// session of the command's own, which follows no migration: while one is
// under way the change is refused before that session starts, and it
// runs once none is.
func TestChangeBesideMigrating(t *testing.T) {
	needEngines(t, "sqlite3")
	metaURL := formatted(t, "src")
	target := inspect.Target{MountPoint: "/mnt/older", MetaURL: metaURL, Ino: meta.RootIno}
	ctx := context.Background()
	setMigration(t, metaURL, meta.MigrationTracking)
	ran := false
	err := changeBeside(ctx, target, "cairn rmr", func(*meta.Client) error { ran = true; return nil })
	if !errors.Is(err, meta.ErrMigrating) || ran {
		t.Errorf("changeBeside while a migration tracks: %v, change ran %v; want ErrMigrating, not run", err, ran)
	}
	withChangeLog(t, metaURL, func(log meta.ChangeLog) error {
		b, err := log.Migration(ctx)
		if err != nil {
			return err
		}
		return log.SwapMigration(ctx, b, nil) // the migration ended
	})
	err = changeBeside(ctx, target, "cairn rmr", func(c *meta.Client) error {
		ran = c.Session() != 0
		return nil
	})
	if err != nil || !ran {
		t.Errorf("changeBeside without a migration: %v, change ran with a session %v", err, ran)
	}
}
