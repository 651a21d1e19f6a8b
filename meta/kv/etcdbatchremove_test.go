package kv

import (
	"context"
	"fmt"
	"testing"

	"cairn/internal/testenv"
	"cairn/meta"
)

// A batch removal of names the client knows reads every name's entry and
// inode keys in one request and commits in another, however many names
// fit in one transaction.
func TestEtcdBatchRemoveRequests(t *testing.T) {
	c := testenv.Etcd(t)
	ctx := context.Background()
	e, err := OpenEtcdURL(c.URL("batchremove"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if err := e.Init(ctx, meta.Format{Name: "batchremove"}, false); err != nil {
		t.Fatal(err)
	}
	sid, err := e.NewSession(ctx, meta.SessionInfo{Hostname: "test"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for i := range batchNames {
		name := fmt.Sprint("f", i)
		if _, err := e.Mknod(ctx, meta.RootCred, meta.RootIno, name, meta.Ino(100+i), meta.TypeFile, 0o644, 0, ""); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	before := e.Stats().RoundTrips
	r, err := e.RemoveEntries(ctx, meta.RootCred, meta.RootIno, names, sid)
	if err != nil {
		t.Fatal(err)
	}
	if r.Removed != len(names) || len(r.Orphans) != 0 {
		t.Fatalf("RemoveEntries removed %d names and left %d orphans, want %d and none", r.Removed, len(r.Orphans), len(names))
	}
	if n := e.Stats().RoundTrips - before; n != 2 {
		t.Errorf("removing %d files the client made took %d requests, want 2 (the reads, the commit)", len(names), n)
	}
}
