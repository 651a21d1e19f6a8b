package kv

import (
	"context"
	"testing"

	"cairn/internal/testenv"
	"cairn/meta"
)

// A client's operation on keys it knows commits in one request; when
// another client changed them meanwhile, the failed compares bring the
// current values back and the operation is redone on them (two requests),
// never applied to stale values.
func TestEtcdSpeculativeCommit(t *testing.T) {
	c := testenv.Etcd(t)
	ctx := context.Background()
	open := func() *Engine {
		e, err := OpenEtcdURL(c.URL("spec"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	a, b := open(), open()
	if err := a.Init(ctx, meta.Format{Name: "spec"}, false); err != nil {
		t.Fatal(err)
	}
	root := meta.RootCred
	mkdir := func(e *Engine, name string, ino meta.Ino) uint64 {
		t.Helper()
		before := e.Stats().RoundTrips
		if _, err := e.Mknod(ctx, root, meta.RootIno, name, ino, meta.TypeDirectory, 0755, 0, ""); err != nil {
			t.Fatalf("mkdir %s: %v", name, err)
		}
		return e.Stats().RoundTrips - before
	}
	mkdir(a, "d1", 100)
	if n := mkdir(a, "d2", 101); n != 1 {
		t.Errorf("mkdir in a directory the client just changed took %d requests, want 1", n)
	}
	mkdir(b, "d3", 102) // a's cached root is stale now
	if n := mkdir(a, "d4", 103); n != 2 {
		t.Errorf("mkdir on a stale cache took %d requests, want 2", n)
	}
	attr, err := b.GetAttr(ctx, meta.RootIno)
	if err != nil || attr.Nlink != 6 {
		t.Fatalf("root nlink %d (%v), want 6: an update was lost", attr.Nlink, err)
	}
	if u, err := b.Usage(ctx); err != nil || u.Inodes != 5 {
		t.Fatalf("usage %+v (%v), want 5 inodes", u, err)
	}
	// An error concluded from the cache is not trusted: d3 exists, which a
	// knows only from the cluster.
	if _, err := a.Mknod(ctx, root, meta.RootIno, "d3", 104, meta.TypeDirectory, 0755, 0, ""); err == nil {
		t.Fatal("mkdir over an entry another client made succeeded")
	}
}
