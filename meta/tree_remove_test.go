package meta_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"cairn/meta"
	"cairn/meta/kv"
)

// retryingEngine is a real engine that reports a retry for every call of
// Stats, as an optimistic engine under contention does.
type retryingEngine struct {
	meta.Engine
	retries atomic.Uint64
}

func (e *retryingEngine) Stats() meta.Stats {
	return meta.Stats{Retries: e.retries.Add(1000)}
}

// TestRemoveTreeUnderRetries: a tree removal that sees many retries goes
// on one name at a time in each directory, and still removes everything.
func TestRemoveTreeUnderRetries(t *testing.T) {
	for _, retrying := range []bool{false, true} {
		ctx := context.Background()
		var eng meta.Engine = kv.OpenMem()
		if retrying {
			eng = &retryingEngine{Engine: eng}
		}
		if err := eng.Init(ctx, meta.Format{Name: "t", BlockSize: 4 << 20, Version: meta.FormatVersion}, false); err != nil {
			t.Fatal(err)
		}
		c := meta.NewClient(eng, meta.ClientConfig{})
		if err := c.Start(ctx); err != nil {
			t.Fatal(err)
		}
		top, _, err := c.Mknod(ctx, meta.RootCred, meta.RootIno, "top", meta.TypeDirectory, 0755, 0, "")
		if err != nil {
			t.Fatal(err)
		}
		for i := range 300 {
			if _, _, err := c.Mknod(ctx, meta.RootCred, top, fmt.Sprint("f", i), meta.TypeFile, 0644, 0, ""); err != nil {
				t.Fatal(err)
			}
		}
		var removed atomic.Int64
		if err := c.RemoveTree(ctx, meta.RootCred, meta.RootIno, "top", top, 16, &removed); err != nil {
			t.Fatalf("RemoveTree (retrying %v): %v", retrying, err)
		}
		if u, err := eng.Usage(ctx); err != nil || removed.Load() != 301 || u.Inodes != 1 {
			t.Errorf("after RemoveTree (retrying %v): removed %d, usage %+v (%v); want 301 removed and only the root left", retrying, removed.Load(), u, err)
		}
		c.Close(ctx)
		eng.Close()
	}
}
