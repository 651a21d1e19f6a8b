package vfs

import (
	"bytes"
	"context"
	"errors"
	"math/rand"
	"syscall"
	"testing"
	"time"

	"cairn/chunk"
	"cairn/meta"
	"cairn/meta/engines"
	"cairn/object"
)

var ctx = context.Background()

// newTestVFS builds a VFS over a fresh mem:// engine and a memory object
// store, with small blocks so that block boundaries are exercised.
func newTestVFS(t testing.TB, fmtMod func(*meta.Format), cfg Config) *VFS {
	t.Helper()
	return newTestVFSWith(t, fmtMod, 8<<20, cfg)
}

func newTestVFSBuffer(t testing.TB, buffer int64, cfg Config) *VFS {
	t.Helper()
	return newTestVFSWith(t, nil, buffer, cfg)
}

func newTestVFSWith(t testing.TB, fmtMod func(*meta.Format), buffer int64, cfg Config) *VFS {
	t.Helper()
	return newTestVFSOn(t, nil, fmtMod, buffer, cfg)
}

// newTestVFSOn is newTestVFSWith on the mem:// engine as wrap returns it
// (nil: as it is), for tests that inject faults.
func newTestVFSOn(t testing.TB, wrap func(meta.Engine) meta.Engine, fmtMod func(*meta.Format), buffer int64, cfg Config) *VFS {
	t.Helper()
	eng, err := engines.Open("mem://")
	if err != nil {
		t.Fatal(err)
	}
	if wrap != nil {
		eng = wrap(eng)
	}
	f := meta.Format{Name: "test", UUID: "u", Storage: "mem", Bucket: t.Name(), BlockSize: 64 << 10, Compression: "none", Version: meta.FormatVersion}
	if fmtMod != nil {
		fmtMod(&f)
	}
	if err := eng.Init(ctx, f, false); err != nil {
		t.Fatal(err)
	}
	store, err := chunk.New(object.NewMem(t.Name()), chunk.Config{BlockSize: int(f.BlockSize), BufferSize: buffer})
	if err != nil {
		t.Fatal(err)
	}
	client := meta.NewClient(eng, meta.ClientConfig{AttrTimeout: time.Second, EntryTimeout: time.Second, DirEntryTimeout: time.Second, CheckPermission: true})
	if err := client.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if cfg.GCInterval == 0 {
		cfg.GCInterval = -1
	}
	v := New(client, store, f, cfg)
	t.Cleanup(func() {
		if err := v.Close(ctx); err != nil {
			t.Errorf("close vfs: %v", err)
		}
		client.Close(ctx)
		store.Close()
		eng.Close()
	})
	return v
}

func create(t *testing.T, v *VFS, name string) (uint64, meta.Ino) {
	t.Helper()
	fh, e, err := v.Create(ctx, meta.RootCred, meta.RootIno, name, 0644, syscall.O_RDWR)
	if err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	return fh, e.Ino
}

func readAll(t *testing.T, v *VFS, fh uint64, size int) []byte {
	t.Helper()
	buf := make([]byte, size+100)
	n, err := v.Read(ctx, fh, buf, 0)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return buf[:n]
}

func TestWriteReadReaddir(t *testing.T) {
	v := newTestVFS(t, nil, Config{})
	fh, ino := create(t, v, "a")
	data := bytes.Repeat([]byte("cairn"), 100000) // 500 kB: several blocks
	if n, err := v.Write(ctx, fh, data, 0); err != nil || n != len(data) {
		t.Fatalf("write: %d %v", n, err)
	}
	a, err := v.GetAttr(ctx, ino)
	if err != nil || a.Length != uint64(len(data)) {
		t.Fatalf("length while buffered: %d %v", a.Length, err)
	}
	if got := readAll(t, v, fh, len(data)); !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes differ", len(got))
	}
	if err := v.Flush(ctx, fh, 0); err != nil {
		t.Fatal(err)
	}
	if err := v.Release(ctx, fh, 0); err != nil {
		t.Fatal(err)
	}
	fh, _, err = v.Open(ctx, meta.RootCred, ino, syscall.O_RDONLY)
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, v, fh, len(data)); !bytes.Equal(got, data) {
		t.Fatalf("after reopen, %d bytes differ", len(got))
	}
	v.Release(ctx, fh, 0)

	dfh, err := v.OpenDir(ctx, meta.RootCred, meta.RootIno)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var lengths []uint64
	err = v.ReadDir(ctx, dfh, 0, true, func(e *meta.Entry, a *meta.Attr, next uint64) bool {
		names = append(names, e.Name)
		lengths = append(lengths, a.Length)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 3 || names[2] != "a" || lengths[2] != uint64(len(data)) {
		t.Fatalf("readdir: %v", names)
	}
	v.ReleaseDir(dfh)
}

// TestRandomWrites compares random writes, truncates and reads against a
// byte slice.
func TestRandomWrites(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	v := newTestVFS(t, nil, Config{CompactAfter: 8})
	fh, _ := create(t, v, "r")
	var model []byte
	const maxSize = 3 << 20
	for i := 0; i < 300; i++ {
		switch op := rng.Intn(10); {
		case op < 6:
			off := rng.Intn(maxSize)
			p := make([]byte, 1+rng.Intn(200<<10))
			rng.Read(p)
			if _, err := v.Write(ctx, fh, p, uint64(off)); err != nil {
				t.Fatalf("seed %d: write: %v", seed, err)
			}
			if end := off + len(p); end > len(model) {
				model = append(model, make([]byte, end-len(model))...)
			}
			copy(model[off:], p)
		case op < 7:
			size := rng.Intn(maxSize)
			sz := uint64(size)
			if _, err := v.SetAttr(ctx, meta.RootCred, 0, meta.SetAttr{}, &sz, 0); err == nil {
				t.Fatalf("setattr of inode 0 succeeded")
			}
			a, err := v.handleIno(fh)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := v.SetAttr(ctx, meta.RootCred, a, meta.SetAttr{}, &sz, fh); err != nil {
				t.Fatalf("seed %d: truncate: %v", seed, err)
			}
			if size < len(model) {
				model = model[:size]
			} else {
				model = append(model, make([]byte, size-len(model))...)
			}
		case op < 8:
			if err := v.Fsync(ctx, fh); err != nil {
				t.Fatalf("seed %d: fsync: %v", seed, err)
			}
		default:
			off := rng.Intn(maxSize)
			n := rng.Intn(300 << 10)
			buf := make([]byte, n)
			got, err := v.Read(ctx, fh, buf, uint64(off))
			if err != nil {
				t.Fatalf("seed %d: read: %v", seed, err)
			}
			want := []byte{}
			if off < len(model) {
				want = model[off:min(len(model), off+n)]
			}
			if !bytes.Equal(buf[:got], want) {
				t.Fatalf("seed %d: step %d: read %d at %d: got %d bytes, want %d (or content differs)", seed, i, n, off, got, len(want))
			}
		}
	}
	if got := readAll(t, v, fh, len(model)); !bytes.Equal(got, model) {
		t.Fatalf("seed %d: final content differs (%d vs %d bytes)", seed, len(got), len(model))
	}
	if err := v.Release(ctx, fh, 0); err != nil {
		t.Fatal(err)
	}
}

func TestUnlinkWhileOpen(t *testing.T) {
	v := newTestVFS(t, nil, Config{})
	fh, ino := create(t, v, "u")
	if _, err := v.Write(ctx, fh, []byte("still here"), 0); err != nil {
		t.Fatal(err)
	}
	if err := v.Unlink(ctx, meta.RootCred, meta.RootIno, "u"); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Lookup(ctx, meta.RootCred, meta.RootIno, "u"); !errors.Is(err, meta.ErrNotFound) {
		t.Fatalf("lookup after unlink: %v", err)
	}
	if got := readAll(t, v, fh, 10); string(got) != "still here" {
		t.Fatalf("read of unlinked open file: %q", got)
	}
	if err := v.Release(ctx, fh, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Client().GetAttrFresh(ctx, ino); !errors.Is(err, meta.ErrNotFound) {
		t.Fatalf("inode after last close: %v", err)
	}
	u, err := v.Client().Engine().Usage(ctx)
	if err != nil || u.Space != 0 {
		t.Fatalf("usage after release: %+v %v", u, err)
	}
}

func TestCompactAndCollect(t *testing.T) {
	v := newTestVFS(t, nil, Config{CompactAfter: 1000})
	fh, ino := create(t, v, "c")
	want := make([]byte, 100<<10)
	for i := 0; i < 40; i++ {
		p := bytes.Repeat([]byte{byte('a' + i%26)}, 5000)
		off := (i * 7919) % (len(want) - len(p))
		if _, err := v.Write(ctx, fh, p, uint64(off)); err != nil {
			t.Fatal(err)
		}
		copy(want[off:], p)
		if err := v.Fsync(ctx, fh); err != nil {
			t.Fatal(err)
		}
	}
	if list, _ := v.Client().Read(ctx, ino, 0); len(list) != 40 {
		t.Fatalf("%d slices before compaction, want 40", len(list))
	}
	if err := v.Compact(ctx, ino, 0); err != nil {
		t.Fatal(err)
	}
	if list, _ := v.Client().Read(ctx, ino, 0); len(list) != 1 {
		t.Fatalf("%d slices after compaction, want 1", len(list))
	}
	got := readAll(t, v, fh, len(want))
	if !bytes.Equal(got, want[:len(got)]) || len(got) < 90000 {
		t.Fatalf("content changed by compaction")
	}
	n, err := v.CollectGarbage(ctx)
	if err != nil || n != 40 {
		t.Fatalf("collected %d slices (%v), want 40", n, err)
	}
	v.Release(ctx, fh, 0)
}

func TestCapacity(t *testing.T) {
	v := newTestVFS(t, func(f *meta.Format) { f.Capacity = 1 << 20; f.Inodes = 3 }, Config{})
	fh, _ := create(t, v, "big")
	if _, err := v.Write(ctx, fh, make([]byte, 512<<10), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Write(ctx, fh, make([]byte, 600<<10), 512<<10); !errors.Is(err, meta.ErrNoSpace) {
		t.Fatalf("write past capacity: %v", err)
	}
	v.Release(ctx, fh, 0)
	create(t, v, "two")
	if _, _, err := v.Create(ctx, meta.RootCred, meta.RootIno, "three", 0644, syscall.O_RDWR); !errors.Is(err, meta.ErrNoSpace) {
		t.Fatalf("create past the inode limit: %v", err)
	}
	s, err := v.StatFS(ctx)
	if err != nil || s.TotalSpace != 1<<20 || s.TotalInodes != 3 {
		t.Fatalf("statfs %+v %v", s, err)
	}
}
