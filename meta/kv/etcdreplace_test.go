package kv

import (
	"context"
	"fmt"
	"testing"
	"time"

	"cairn/internal/testenv"
	"cairn/meta"
)

// TestEtcdReplaceRequests: ReplaceInodes of 100 files, each with a new
// slice list, reads them and the reference counts in a few requests and
// commits the 200 writes that differ (a chunk list and a reference count
// each; the old slices' references are kept) in pages of 100: five
// requests at most, where a transaction per inode took 200.
func TestEtcdReplaceRequests(t *testing.T) {
	c := testenv.Etcd(t)
	ctx := context.Background()
	e, err := OpenEtcdURL(c.URL("replace"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if err := e.Init(ctx, meta.Format{Name: "replace"}, false); err != nil {
		t.Fatal(err)
	}
	var states []meta.InodeState
	for i := range 100 {
		ino := meta.Ino(100 + i)
		a, err := e.Mknod(ctx, meta.RootCred, meta.RootIno, fmt.Sprint("f", i), ino, meta.TypeFile, 0o644, 0, "")
		if err != nil {
			t.Fatal(err)
		}
		if a, _, err = e.Write(ctx, ino, 0, meta.Slice{ID: uint64(1000 + i), Size: 10, Len: 10}, time.Now().UnixNano()); err != nil {
			t.Fatal(err)
		}
		states = append(states, meta.InodeState{Ino: ino, Records: []meta.DumpRecord{
			{Kind: meta.DumpInode, Ino: ino, Attr: a},
			{Kind: meta.DumpChunk, Ino: ino, Slices: []meta.Slice{{ID: uint64(2000 + i), Size: 10, Len: 10}}},
		}})
	}
	before := e.Stats().RoundTrips
	done, err := e.ReplaceInodes(ctx, states)
	if err != nil {
		t.Fatal(err)
	}
	if len(done.Kept) != 100 {
		t.Errorf("ReplaceInodes kept %d references, want 100", len(done.Kept))
	}
	if n := e.Stats().RoundTrips - before; n > 5 {
		t.Errorf("replacing the slice lists of 100 files took %d requests, want at most 5 (two reads, three commits of 100 writes)", n)
	} else {
		t.Logf("%d requests", n)
	}
}
