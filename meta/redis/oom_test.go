package redis

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"cairn/internal/testenv"
	"cairn/meta"
	"cairn/meta/metatest"
)

// TestOutOfMemory fills a server that has a memory limit and no eviction:
// operations then fail with ErrNoSpace, whole (no half-applied script),
// and the tree's counters stay exact.
func TestOutOfMemory(t *testing.T) {
	s := testenv.Redis(t, "--maxmemory", "3mb", "--maxmemory-policy", "noeviction")
	e := openURL(t, s.URL(0))
	ctx := context.Background()
	if err := e.Init(ctx, meta.Format{Name: "oom", Version: meta.FormatVersion}, false); err != nil {
		t.Fatal(err)
	}
	value := make([]byte, 60000)
	var full error
	created := 0
	for i := 0; i < 2000 && full == nil; i++ {
		ino, err := e.NextInodes(ctx, 1)
		if err != nil {
			full = err
			break
		}
		if _, err := e.Mknod(ctx, meta.RootCred, meta.RootIno, fmt.Sprint("f", i), ino, meta.TypeFile, 0644, 0, ""); err != nil {
			full = err
			break
		}
		created++
		full = e.SetXattr(ctx, meta.RootCred, ino, "user.fill", value, 0)
	}
	if !errors.Is(full, meta.ErrNoSpace) {
		t.Fatalf("after %d files the server is not full: %v", created, full)
	}
	wantOneLine(t, full, "maxmemory")
	if err := metatest.Verify(ctx, e); err != nil {
		t.Errorf("tree after running out of memory: %v", err)
	}
}
