package metatest

import (
	"errors"
	"testing"

	"cairn/meta"
)

// testFormat checks Init and Load on a fresh engine: not formatted before
// Init, the root Init creates, ErrFormatted without force, and a forced
// Init that replaces the settings and keeps the tree; settings of a newer
// format version are refused by Load, not read as if they were this one's.
func testFormat(t *testing.T, open func(t *testing.T) meta.Engine) {
	e := open(t)
	ctx := t.Context()
	if e.Name() == "" {
		t.Errorf("Name() is empty")
	}
	if _, err := e.Load(ctx); !errors.Is(err, meta.ErrNotFormatted) {
		t.Fatalf("Load before Init: got %v, want ErrNotFormatted", err)
	}
	f := volumeFormat("first")
	if err := e.Init(ctx, f, false); err != nil {
		t.Fatalf("Init: %v", err)
	}
	got, err := e.Load(ctx)
	if err != nil {
		t.Fatalf("Load after Init: %v", err)
	}
	if got != f {
		t.Errorf("Load returned %+v, Init stored %+v", got, f)
	}

	root, err := e.GetAttr(ctx, meta.RootIno)
	if err != nil {
		t.Fatalf("GetAttr of the root: %v", err)
	}
	if root.Type != meta.TypeDirectory || root.Mode != 0777 || root.Uid != 0 || root.Gid != 0 || root.Nlink != 2 || root.Parent != meta.RootIno {
		t.Errorf("root after Init is %+v, want a directory, mode 0777, owned by 0:0, nlink 2, Parent 1", root)
	}
	if u, err := e.Usage(ctx); err != nil || u != (meta.Usage{Inodes: 1}) {
		t.Errorf("Usage of a fresh volume = %+v, %v; want {Space:0 Inodes:1}", u, err)
	}

	ino, err := e.NextInodes(ctx, 1)
	if err != nil {
		t.Fatalf("NextInodes: %v", err)
	}
	if _, err := e.Mknod(ctx, meta.RootCred, meta.RootIno, "kept", ino, meta.TypeDirectory, 0755, 0, ""); err != nil {
		t.Fatalf("Mknod: %v", err)
	}

	g := volumeFormat("second")
	g.BlockSize = 1 << 20
	g.Compression = "zstd"
	g.TrashDays = 3
	g.Capacity = 1 << 40
	g.Inodes = 1_000_000
	if err := e.Init(ctx, g, false); !errors.Is(err, meta.ErrFormatted) {
		t.Errorf("second Init without force: got %v, want ErrFormatted", err)
	}
	if got, err := e.Load(ctx); err != nil || got != f {
		t.Errorf("Load after a refused Init = %+v, %v; want the first settings %+v", got, err, f)
	}
	if err := e.Init(ctx, g, true); err != nil {
		t.Fatalf("Init with force: %v", err)
	}
	if got, err := e.Load(ctx); err != nil || got != g {
		t.Errorf("Load after a forced Init = %+v, %v; want %+v", got, err, g)
	}
	kept, _, err := e.Lookup(ctx, meta.RootIno, "kept")
	if err != nil || kept != ino {
		t.Errorf("after a forced Init, Lookup of the old directory = %d, %v; want %d (force keeps the tree)", kept, err, ino)
	}
	if err := Verify(ctx, e); err != nil {
		t.Errorf("tree check after a forced Init: %v", err)
	}
	_ = e.Stats() // any value is fine; it must not fail

	// A forced Init of an empty database simply formats it.
	fresh := open(t)
	if err := fresh.Init(ctx, f, true); err != nil {
		t.Fatalf("forced Init of an empty database: %v", err)
	}
	if got, err := fresh.Load(ctx); err != nil || got != f {
		t.Errorf("Load after a forced first Init = %+v, %v; want %+v", got, err, f)
	}
	if err := Verify(ctx, fresh); err != nil {
		t.Errorf("tree check after a forced first Init: %v", err)
	}
	newer := open(t)
	n := f
	n.Version = meta.FormatVersion + 1
	if err := newer.Init(ctx, n, false); err != nil {
		t.Fatalf("Init of a newer format version: %v", err)
	}
	if _, err := newer.Load(ctx); !errors.Is(err, meta.ErrNewerFormat) {
		t.Errorf("Load of format version %d: got %v, want ErrNewerFormat", n.Version, err)
	}
}
