package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"cairn/meta"
	"cairn/volume"
)

// TestMovedVolumeRefused: format, status and fsck of a volume a migration
// moved elsewhere say where it went, in one line, and change nothing.
func TestMovedVolumeRefused(t *testing.T) {
	needEngines(t, "sqlite3")
	metaURL := "sqlite3://" + filepath.Join(t.TempDir(), "src.db")
	if code, _, stderr := runCaptured(t, "format", metaURL, "src", "--storage", "mem", "-q"); code != 0 {
		t.Fatalf("format: exit %d: %s", code, stderr)
	}
	eng, err := volume.OpenEngine(metaURL)
	if err != nil {
		t.Fatal(err)
	}
	log, ok := meta.Capability[meta.ChangeLog](eng)
	if !ok {
		t.Fatal("SQLite has no meta.ChangeLog")
	}
	moved := meta.EncodeMigration(meta.MigrationRecord{ID: "m", Destination: "postgres://db.example/vol", Phase: meta.MigrationSwitched})
	if err := log.SwapMigration(context.Background(), nil, moved); err != nil {
		t.Fatal(err)
	}
	eng.Close()
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
