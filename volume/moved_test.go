package volume_test

import (
	"strings"
	"testing"

	"cairn/meta"
	"cairn/volume"
)

// TestOpenMovedVolume: a volume a migration moved elsewhere is refused by
// every opening (mount, status, ...) with one line naming where it went;
// one whose migration has not switched opens as ever.
func TestOpenMovedVolume(t *testing.T) {
	url := format(t, testFormat(t))
	eng, err := volume.OpenEngine(url)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	log, ok := meta.Capability[meta.ChangeLog](eng)
	if !ok {
		t.Fatal("SQLite has no meta.ChangeLog")
	}
	tracking := meta.EncodeMigration(meta.MigrationRecord{ID: "m", Destination: "postgres://db.example/vol", Phase: meta.MigrationTracking})
	if err := log.SwapMigration(ctx, nil, tracking); err != nil {
		t.Fatal(err)
	}
	v, err := volume.OpenMeta(ctx, url, volume.Options{})
	if err != nil {
		t.Fatalf("OpenMeta during a migration: %v", err)
	}
	v.Engine.Close()
	switched := meta.EncodeMigration(meta.MigrationRecord{ID: "m", Destination: "postgres://db.example/vol", Phase: meta.MigrationSwitched})
	if err := log.SwapMigration(ctx, tracking, switched); err != nil {
		t.Fatal(err)
	}
	want := "the volume at " + url + ": volume moved to postgres://db.example/vol ('cairn migrate'): use that URL; this database keeps only the old copy"
	if _, err := volume.OpenMeta(ctx, url, volume.Options{}); err == nil || err.Error() != want {
		t.Errorf("OpenMeta of a moved volume = %v, want %q", err, want)
	}
	if _, err := volume.Open(ctx, url, volume.Options{}); err == nil || !strings.Contains(err.Error(), "moved to postgres://db.example/vol") {
		t.Errorf("Open of a moved volume = %v", err)
	}
}
