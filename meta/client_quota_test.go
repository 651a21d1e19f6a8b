package meta_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"cairn/meta"
	"cairn/meta/kv"
)

// lookupCounter is an engine that counts its Lookups and Readdirs.
type lookupCounter struct {
	meta.Engine
	lookups  atomic.Int64
	readdirs atomic.Int64
	listed   atomic.Int64 // entries the Readdirs returned
	// afterReaddir and afterLookup, when set, run after each Readdir's
	// or Lookup's engine call, before its answer goes back.
	afterReaddir, afterLookup func()
}

func (l *lookupCounter) Readdir(ctx context.Context, ino meta.Ino, after string, limit int, plus bool) ([]meta.Entry, error) {
	l.readdirs.Add(1)
	es, err := l.Engine.Readdir(ctx, ino, after, limit, plus)
	l.listed.Add(int64(len(es)))
	if l.afterReaddir != nil {
		l.afterReaddir()
	}
	return es, err
}

func (l *lookupCounter) Unwrap() meta.Engine { return l.Engine }

func (l *lookupCounter) Lookup(ctx context.Context, parent meta.Ino, name string) (meta.Ino, meta.Attr, error) {
	l.lookups.Add(1)
	ino, a, err := l.Engine.Lookup(ctx, parent, name)
	if l.afterLookup != nil {
		l.afterLookup()
	}
	return ino, a, err
}

// TestRenameIntoQuotaUsesCaches: a rename into a quota tree of a file
// this client has cached, onto a name it holds as missing, asks the
// engine for no Lookup: what moves comes from the client's caches.
func TestRenameIntoQuotaUsesCaches(t *testing.T) {
	ctx := context.Background()
	mem := kv.OpenMem()
	defer mem.Close()
	if err := mem.Init(ctx, meta.Format{Name: "t", BlockSize: 4 << 20, Version: meta.FormatVersion}, false); err != nil {
		t.Fatal(err)
	}
	eng := &lookupCounter{Engine: mem}
	c := meta.NewClient(eng, meta.ClientConfig{AttrTimeout: time.Hour, EntryTimeout: time.Hour, DirEntryTimeout: time.Hour})
	q, _, err := c.Mknod(ctx, meta.RootCred, meta.RootIno, "q", meta.TypeDirectory, 0o755, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetQuota(ctx, q, 1<<20, 10); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Mknod(ctx, meta.RootCred, meta.RootIno, "f", meta.TypeFile, 0o644, 0, ""); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Lookup(ctx, meta.RootCred, meta.RootIno, "f"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Lookup(ctx, meta.RootCred, q, "f"); !errors.Is(err, meta.ErrNotFound) {
		t.Fatalf("Lookup q/f: %v, want not found", err)
	}
	before := eng.lookups.Load()
	if _, _, _, err := c.Rename(ctx, meta.RootCred, meta.RootIno, "f", q, "f", 0); err != nil {
		t.Fatal(err)
	}
	if n := eng.lookups.Load() - before; n != 0 {
		t.Errorf("the rename into the quota tree sent %d Lookups, want none", n)
	}
	if got, ok, err := c.QuotaOf(ctx, q); err != nil || !ok || got.Inodes != 1 {
		t.Errorf("QuotaOf q: %+v %v %v, want 1 inode used", got, ok, err)
	}
}
