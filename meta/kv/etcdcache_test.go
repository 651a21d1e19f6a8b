package kv

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"cairn/internal/testenv"
	"cairn/meta"
)

// A client's operation on keys it knows commits in one request; when
// another client changed them meanwhile, the failed compares bring the
// current values back and the operation is redone on them (two requests),
// never applied to stale values.
func TestEtcdSpeculativeCommit(t *testing.T) {
	ctx := context.Background()
	a, b := twoEtcdClients(t, "spec")
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

// twoEtcdClients opens two clients of a new volume named name.
func twoEtcdClients(t *testing.T, name string) (*Engine, *Engine) {
	c := testenv.Etcd(t)
	open := func() *Engine {
		e, err := OpenEtcdURL(c.URL(name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	a, b := open(), open()
	if err := a.Init(context.Background(), meta.Format{Name: name}, false); err != nil {
		t.Fatal(err)
	}
	return a, b
}

// A read whose keys the client knows is one request, however its reads
// depend on each other: Lookup reads the entry, then the inode it names.
func TestEtcdPrefetchedReads(t *testing.T) {
	c := testenv.Etcd(t)
	ctx := context.Background()
	e, err := OpenEtcdURL(c.URL("prefetch"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if err := e.Init(ctx, meta.Format{Name: "prefetch"}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Mknod(ctx, meta.RootCred, meta.RootIno, "f", 100, meta.TypeFile, 0644, 0, ""); err != nil {
		t.Fatal(err)
	}
	requests := func(what string, want uint64, op func() error) {
		t.Helper()
		before := e.Stats().RoundTrips
		if err := op(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if n := e.Stats().RoundTrips - before; n != want {
			t.Errorf("%s took %d requests, want %d", what, n, want)
		}
	}
	requests("lookup of a name the client made", 1, func() error {
		ino, _, err := e.Lookup(ctx, meta.RootIno, "f")
		if err == nil && ino != 100 {
			err = fmt.Errorf("found inode %d, want 100", ino)
		}
		return err
	})
	requests("unlink of a file the client knows", 1, func() error {
		_, _, err := e.Unlink(ctx, meta.RootCred, meta.RootIno, "f", 1)
		return err
	})
	// The unlink carried what the client knew of the file's keys (it made
	// the file), so their listing runs on the cache too.
	requests("release of the unlinked file", 1, func() error { return e.ReleaseOrphan(ctx, 1, 100) })
	requests("lookup of the name unlinked", 1, func() error {
		if _, _, err := e.Lookup(ctx, meta.RootIno, "f"); !errors.Is(err, meta.ErrNotFound) {
			return fmt.Errorf("lookup after unlink: %v, want ENOENT", err)
		}
		return nil
	})
}
