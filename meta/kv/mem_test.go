package kv

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"cairn/meta"
)

func newMem(t *testing.T) *Engine {
	t.Helper()
	e := OpenMem()
	t.Cleanup(func() { e.Close() })
	if err := e.Init(context.Background(), meta.Format{Name: "test", BlockSize: 4 << 20}, false); err != nil {
		t.Fatal(err)
	}
	return e
}

// TestMemBasics is a smoke test of the engine over the in-memory store;
// the full behaviour is metatest's.
func TestMemBasics(t *testing.T) {
	ctx := context.Background()
	e := newMem(t)
	root := meta.RootCred
	ino, err := e.NextInodes(ctx, 10)
	if err != nil || ino != 2 {
		t.Fatalf("NextInodes = %d, %v; want 2", ino, err)
	}
	if _, err := e.Mknod(ctx, root, meta.RootIno, "d", ino, meta.TypeDirectory, 0755, 0, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Mknod(ctx, root, meta.RootIno, "d", ino+1, meta.TypeFile, 0644, 0, ""); !errors.Is(err, meta.ErrExists) {
		t.Fatalf("second mknod: %v, want EEXIST", err)
	}
	for i := 0; i < 5; i++ {
		if _, err := e.Mknod(ctx, root, ino, fmt.Sprintf("f%d", i), ino+1+meta.Ino(i), meta.TypeFile, 0644, 0, ""); err != nil {
			t.Fatal(err)
		}
	}
	ents, err := e.Readdir(ctx, ino, "f1", 2, true)
	if err != nil || len(ents) != 2 || ents[0].Name != "f2" || ents[1].Attr == nil {
		t.Fatalf("Readdir after f1 = %+v, %v", ents, err)
	}
	if err := e.Rmdir(ctx, root, meta.RootIno, "d"); !errors.Is(err, meta.ErrNotEmpty) {
		t.Fatalf("rmdir non-empty: %v", err)
	}
	a, n, err := e.Write(ctx, ino+1, 0, meta.Slice{ID: 7, Size: 5000, Len: 5000}, 1)
	if err != nil || a.Length != 5000 || n != 1 {
		t.Fatalf("Write = %+v %d %v", a, n, err)
	}
	if u, _ := e.Usage(ctx); u.Space != 8192 || u.Inodes != 7 {
		t.Fatalf("usage %+v", u)
	}
	if _, _, _, err := e.Rename(ctx, root, ino, "f0", ino, "f1", 0, 1); err != nil {
		t.Fatal(err)
	}
	if got, _, err := e.Lookup(ctx, ino, "f1"); err != nil || got != ino+1 {
		t.Fatalf("lookup after rename: %d %v", got, err)
	}
	if err := e.ReleaseOrphan(ctx, 1, ino+2); err != nil {
		t.Fatal(err)
	}
	dead, _ := e.DeadSlices(ctx, 10)
	if len(dead) != 0 {
		t.Fatalf("dead slices %v before the file goes", dead)
	}
	if _, _, err := e.Unlink(ctx, root, ino, "f1", 1); err != nil {
		t.Fatal(err)
	}
	if err := e.ReleaseOrphan(ctx, 1, ino+1); err != nil {
		t.Fatal(err)
	}
	dead, _ = e.DeadSlices(ctx, 10)
	if len(dead) != 1 || dead[0].ID != 7 {
		t.Fatalf("dead slices %v", dead)
	}
	if u, _ := e.Usage(ctx); u.Space != 0 || u.Inodes != 5 {
		t.Fatalf("usage after unlink %+v", u)
	}
}
