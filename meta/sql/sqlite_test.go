package sql

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"cairn/meta"
)

func openSQLite(t *testing.T) *Engine {
	t.Helper()
	e, err := Open("sqlite3://" + filepath.Join(t.TempDir(), "vol.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func testFormat() meta.Format {
	return meta.Format{Name: "t", UUID: "u", Storage: "mem", BlockSize: 4 << 20, Compression: "none", Version: meta.FormatVersion}
}

// TestSQLiteBasics walks the common operations once, as a smoke test
// beside the conformance suite.
func TestSQLiteBasics(t *testing.T) {
	e := openSQLite(t)
	ctx := context.Background()
	if _, err := e.Load(ctx); !errors.Is(err, meta.ErrNotFormatted) {
		t.Fatalf("Load of a missing file: %v, want ErrNotFormatted", err)
	}
	if err := e.Init(ctx, testFormat(), false); err != nil {
		t.Fatal(err)
	}
	if f, err := e.Load(ctx); err != nil || f != testFormat() {
		t.Fatalf("Load = %+v, %v", f, err)
	}
	ino, err := e.NextInodes(ctx, 3)
	if err != nil || ino != 2 {
		t.Fatalf("NextInodes = %d, %v; want 2", ino, err)
	}
	d, err := e.Mknod(ctx, meta.RootCred, meta.RootIno, "d", ino, meta.TypeDirectory, 0755, 0, "")
	if err != nil || d.Nlink != 2 || d.Parent != meta.RootIno {
		t.Fatalf("mkdir = %+v, %v", d, err)
	}
	if _, err := e.Mknod(ctx, meta.RootCred, ino, "f", ino+1, meta.TypeFile, 0644, 0, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Mknod(ctx, meta.RootCred, ino, "f", ino+2, meta.TypeFile, 0644, 0, ""); !errors.Is(err, meta.ErrExists) {
		t.Fatalf("second create: %v, want EEXIST", err)
	}
	got, a, err := e.Lookup(ctx, ino, "f")
	if err != nil || got != ino+1 || a.Type != meta.TypeFile {
		t.Fatalf("Lookup = %d %+v %v", got, a, err)
	}
	sid, err := e.NextSlices(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	a, n, err := e.Write(ctx, ino+1, 0, meta.Slice{Pos: 10, ID: sid, Size: 100, Len: 100}, time.Now().UnixNano())
	if err != nil || n != 1 || a.Length != 110 {
		t.Fatalf("Write = %+v %d %v", a, n, err)
	}
	ents, err := e.Readdir(ctx, ino, "", 10, true)
	if err != nil || len(ents) != 1 || ents[0].Name != "f" || ents[0].Attr.Length != 110 {
		t.Fatalf("Readdir = %+v, %v", ents, err)
	}
	if u, err := e.Usage(ctx); err != nil || u != (meta.Usage{Space: 4096, Inodes: 3}) {
		t.Fatalf("Usage = %+v, %v", u, err)
	}
	if _, _, _, err := e.Rename(ctx, meta.RootCred, ino, "f", meta.RootIno, "g", 0, 1); err != nil {
		t.Fatal(err)
	}
	gone, a, err := e.Unlink(ctx, meta.RootCred, meta.RootIno, "g", 1)
	if err != nil || gone != ino+1 || a.Nlink != 0 {
		t.Fatalf("Unlink = %d %+v %v", gone, a, err)
	}
	if err := e.ReleaseOrphan(ctx, 1, gone); err != nil {
		t.Fatal(err)
	}
	if dead, err := e.DeadSlices(ctx, 10); err != nil || len(dead) != 1 || dead[0].ID != sid {
		t.Fatalf("DeadSlices = %+v, %v", dead, err)
	}
	if err := e.Rmdir(ctx, meta.RootCred, meta.RootIno, "d"); err != nil {
		t.Fatal(err)
	}
	if u, err := e.Usage(ctx); err != nil || u != (meta.Usage{Inodes: 1}) {
		t.Fatalf("Usage at the end = %+v, %v", u, err)
	}
}
