package kv

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"

	"cairn/internal/testenv"
	"cairn/meta"
)

// etcd refuses requests over 1.5 MiB and transactions over 128 operations:
// a big directory, the largest xattr and a file with long slice lists must
// all work without hitting those limits, and what cannot fit is refused
// clearly.
func TestEtcdLimits(t *testing.T) {
	c := testenv.Etcd(t)
	opened, err := OpenEtcdURL(c.URL("limits"))
	if err != nil {
		t.Fatal(err)
	}
	defer opened.Close()
	e := meta.Checked(opened) // as engines.Open returns it
	ctx := context.Background()
	if err := e.Init(ctx, meta.Format{Name: "limits"}, false); err != nil {
		t.Fatal(err)
	}
	root := meta.RootCred

	// A directory larger than one scan page, listed with attributes in one
	// call.
	const n = 600
	dir, _ := e.NextInodes(ctx, n+1)
	if _, err := e.Mknod(ctx, root, meta.RootIno, "big", dir, meta.TypeDirectory, 0755, 0, ""); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		if _, err := e.Mknod(ctx, root, dir, fmt.Sprintf("file-with-a-longish-name-%04d", i), dir+meta.Ino(i), meta.TypeFile, 0644, 0, ""); err != nil {
			t.Fatal(err)
		}
	}
	ents, err := e.Readdir(ctx, dir, "", n+10, true)
	if err != nil || len(ents) != n {
		t.Fatalf("Readdir of %d entries: %d entries, %v", n, len(ents), err)
	}
	for i, ent := range ents {
		if ent.Attr == nil || ent.Ino != dir+meta.Ino(i+1) {
			t.Fatalf("entry %d: %+v", i, ent)
		}
	}

	// The largest xattr Linux allows fits; one byte more is E2BIG.
	f := dir + 1
	big := make([]byte, meta.MaxXattrValue)
	if err := e.SetXattr(ctx, root, f, "user.big", big, 0); err != nil {
		t.Fatalf("64 KiB xattr: %v", err)
	}
	if v, err := e.GetXattr(ctx, f, "user.big"); err != nil || len(v) != len(big) {
		t.Fatalf("read back 64 KiB xattr: %d bytes, %v", len(v), err)
	}
	if err := e.SetXattr(ctx, root, f, "user.huge", make([]byte, meta.MaxXattrValue+1), 0); !errors.Is(err, syscall.E2BIG) {
		t.Fatalf("xattr over 64 KiB: %v, want E2BIG", err)
	}

	// A file whose chunks hold more slice records than one etcd
	// transaction can drop is released in steps.
	var ids []uint64
	for idx := uint32(0); idx < 3; idx++ {
		for i := 0; i < 150; i++ {
			id, _ := e.NextSlices(ctx, 1)
			ids = append(ids, id)
			if _, _, err := e.Write(ctx, f, idx, meta.Slice{Pos: uint32(i) * 100, ID: id, Size: 100, Len: 100}, 1); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A truncate that cuts them all off (O_TRUNC of a big file).
	g := dir + 2
	var gids []uint64
	for idx := uint32(0); idx < 3; idx++ {
		for i := 0; i < 100; i++ {
			id, _ := e.NextSlices(ctx, 1)
			gids = append(gids, id)
			if _, _, err := e.Write(ctx, g, idx, meta.Slice{Pos: uint32(i) * 100, ID: id, Size: 100, Len: 100}, 1); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := e.Truncate(ctx, root, g, 0); err != nil {
		t.Fatalf("truncate a file of %d slices to 0: %v", len(gids), err)
	}
	if dead, err := e.DeadSlices(ctx, 0); err != nil || len(dead) != len(gids) {
		t.Fatalf("dead slices after the truncate: %d, %v; want %d", len(dead), err, len(gids))
	}
	for _, id := range gids {
		ids = append(ids, id) // still queued when f goes below
	}
	if a, err := e.GetAttr(ctx, g); err != nil || a.Length != 0 {
		t.Fatalf("truncated file: %+v, %v", a, err)
	}

	sid, _ := e.NewSession(ctx, meta.SessionInfo{Hostname: "limits"})
	if _, _, err := e.Unlink(ctx, root, dir, "file-with-a-longish-name-0001", sid); err != nil {
		t.Fatal(err)
	}
	if err := e.ReleaseOrphan(ctx, sid, f); err != nil {
		t.Fatalf("release a file of %d slices: %v", len(ids), err)
	}
	dead, err := e.DeadSlices(ctx, 0)
	if err != nil || len(dead) != len(ids) {
		t.Fatalf("dead slices: %d, %v; want %d", len(dead), err, len(ids))
	}
	if _, err := e.GetAttr(ctx, f); !errors.Is(err, meta.ErrNotFound) {
		t.Fatalf("released inode still there: %v", err)
	}
}
