package backup

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"cairn/dump"
	"cairn/meta"
	"cairn/meta/engines"
	"cairn/object"
)

// TestTurn drives the turns of two clients of one SQLite volume by hand:
// only the lowest live session writes, not twice within an interval, the
// other takes over when it leaves, old backups are pruned, and what is
// written loads as a dump of the volume.
func TestTurn(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	eng, err := engines.Open("sqlite3://" + filepath.Join(dir, "meta.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	format := meta.Format{Name: "vol", UUID: "uuid-1", Storage: "file", Bucket: filepath.Join(dir, "blocks"),
		BlockSize: 64 << 10, Compression: "lz4", Version: meta.FormatVersion}
	if err := eng.Init(ctx, format, false); err != nil {
		t.Fatal(err)
	}
	dumper, ok := meta.Capability[meta.Dumper](eng)
	if !ok {
		t.Fatal("the SQLite engine is no Dumper")
	}
	store, err := object.NewFile(format.Bucket)
	if err != nil {
		t.Fatal(err)
	}
	first, err := eng.NewSession(ctx, meta.SessionInfo{Hostname: "a"})
	if err != nil {
		t.Fatal(err)
	}
	second, err := eng.NewSession(ctx, meta.SessionInfo{Hostname: "b"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	runner := func(sid uint64) *Runner {
		return newRunner(Config{Interval: time.Hour, Dumper: dumper, Sessions: eng.ListSessions, Store: store,
			Session: func() uint64 { return sid }, TempDir: dir, Now: func() time.Time { return now }})
	}
	turn := func(r *Runner, want bool) string {
		t.Helper()
		key, err := r.Turn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if (key != "") != want {
			t.Fatalf("at %v: Turn wrote %q, want a backup: %v", now, key, want)
		}
		return key
	}
	a, b := runner(first), runner(second)

	// Two old backups of one day (three days ago, whatever the hour now):
	// the later goes at the next turn.
	day := now.UTC().Truncate(24 * time.Hour).Add(-72 * time.Hour)
	old1, old2 := KeyFor(day.Add(time.Hour)), KeyFor(day.Add(2*time.Hour))
	for _, k := range []string{old1, old2} {
		if err := store.Put(ctx, k, nil); err != nil {
			t.Fatal(err)
		}
	}

	turn(b, false)
	k1 := turn(a, true)
	turn(a, false)
	turn(b, false)
	now = now.Add(time.Hour)
	k2 := turn(a, true)
	if err := eng.CloseSession(ctx, first); err != nil {
		t.Fatal(err)
	}
	now = now.Add(30 * time.Minute)
	turn(b, false)
	now = now.Add(30 * time.Minute)
	k3 := turn(b, true)

	var keys []string
	infos, err := store.List(ctx, Prefix, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range infos {
		keys = append(keys, info.Key)
	}
	if want := []string{old1, k1, k2, k3}; !slices.Equal(keys, want) {
		t.Errorf("backups in the store: %v, want %v", keys, want)
	}

	data, err := store.Get(ctx, k3, 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	r, err := dump.NewReader(bytes.NewReader(data), k3)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	inodes := 0
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Kind == meta.DumpInode {
			inodes++
		}
	}
	if inodes != 1 {
		t.Errorf("the backup of an empty volume holds %d inodes, want 1 (the root)", inodes)
	}
}

// TestTurnOverdue: when the writer (the lowest live session) writes no
// backups — mounted with backups off — another client writes one once two
// of its intervals have passed without.
func TestTurnOverdue(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	eng, err := engines.Open("sqlite3://" + filepath.Join(dir, "meta.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	format := meta.Format{Name: "vol", UUID: "uuid-2", Storage: "file", Bucket: filepath.Join(dir, "blocks"),
		BlockSize: 64 << 10, Compression: "lz4", Version: meta.FormatVersion}
	if err := eng.Init(ctx, format, false); err != nil {
		t.Fatal(err)
	}
	dumper, _ := meta.Capability[meta.Dumper](eng)
	store, err := object.NewFile(format.Bucket)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.NewSession(ctx, meta.SessionInfo{Hostname: "backups off"}); err != nil {
		t.Fatal(err)
	}
	sid, err := eng.NewSession(ctx, meta.SessionInfo{Hostname: "backups on"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	r := newRunner(Config{Interval: time.Hour, Dumper: dumper, Sessions: eng.ListSessions, Store: store,
		Session: func() uint64 { return sid }, TempDir: dir, Now: func() time.Time { return now },
		Fresh: 1000 * time.Hour}) // the first session stays live all along
	for _, step := range []struct {
		after time.Duration
		want  bool
	}{
		{0, false},
		{time.Hour, false},
		{time.Hour, false},
		{59 * time.Minute, false},
		{2 * time.Minute, true},
		{time.Hour, false},
		{time.Hour, false},
		{59 * time.Minute, false},
		{2 * time.Minute, true},
	} {
		now = now.Add(step.after)
		key, err := r.Turn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if (key != "") != step.want {
			t.Fatalf("%v after start: Turn wrote %q, want a backup: %v", now.Sub(r.started), key, step.want)
		}
	}
}
