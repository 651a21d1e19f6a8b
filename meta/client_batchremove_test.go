package meta_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"cairn/meta"
	"cairn/meta/kv"
)

// TestRemoveTreeKeepsOpenFiles: a tree removal through an engine's
// BatchRemover leaves a file this client holds open readable until it is
// closed, and then releases it; the other files go at once.
func TestRemoveTreeKeepsOpenFiles(t *testing.T) {
	ctx := context.Background()
	eng := kv.OpenMem()
	defer eng.Close()
	if _, ok := meta.Capability[meta.BatchRemover](eng); !ok {
		t.Fatal("the mem engine has no BatchRemover")
	}
	if err := eng.Init(ctx, meta.Format{Name: "t", BlockSize: 4 << 20, Version: meta.FormatVersion}, false); err != nil {
		t.Fatal(err)
	}
	c := meta.NewClient(eng, meta.ClientConfig{})
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	top, _, err := c.Mknod(ctx, meta.RootCred, meta.RootIno, "top", meta.TypeDirectory, 0755, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	var open meta.Ino
	for i := range 600 {
		ino, _, err := c.Mknod(ctx, meta.RootCred, top, fmt.Sprint("f", i), meta.TypeFile, 0644, 0, "")
		if err != nil {
			t.Fatal(err)
		}
		if i == 300 {
			open = ino
		}
	}
	c.Opened(open)
	if err := c.RemoveTree(ctx, meta.RootCred, meta.RootIno, "top", top, 4, nil); err != nil {
		t.Fatalf("RemoveTree: %v", err)
	}
	if a, err := eng.GetAttr(ctx, open); err != nil || a.Nlink != 0 {
		t.Fatalf("open file after RemoveTree: %+v, %v; want it kept with nlink 0", a, err)
	}
	if u, err := eng.Usage(ctx); err != nil || u.Inodes != 2 {
		t.Errorf("usage with the open file left: %+v (%v), want the root and the open file", u, err)
	}
	if _, err := c.Closed(ctx, open); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.GetAttr(ctx, open); !errors.Is(err, meta.ErrNotFound) {
		t.Errorf("open file after close: %v, want it released", err)
	}
}
