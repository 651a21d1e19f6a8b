package object_test

import (
	"bytes"
	"context"
	"testing"

	"cairn/object"
)

// TestFileDeferSyncFlushes: objects put with DeferSync read back before
// and after Sync, and a Sync after their deletion (their file and emptied
// directory gone) succeeds.
func TestFileDeferSyncFlushes(t *testing.T) {
	ctx := context.Background()
	s, err := object.Open("file", t.TempDir(), object.Options{DeferSync: true})
	if err != nil {
		t.Fatal(err)
	}
	sy, ok := s.(object.Syncer)
	if !ok {
		t.Fatal("a file store does not implement Syncer")
	}
	for i, key := range []string{"a/1", "a/2", "b/c/3"} {
		if err := s.Put(ctx, key, []byte{byte(i), 1, 2}); err != nil {
			t.Fatal(err)
		}
	}
	if err := sy.Sync(ctx); err != nil {
		t.Fatalf("sync: %v", err)
	}
	if got, err := s.Get(ctx, "b/c/3", 0, -1); err != nil || !bytes.Equal(got, []byte{2, 1, 2}) {
		t.Errorf("get after sync: %v %v", got, err)
	}
	if err := s.Put(ctx, "d/e/4", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "d/e/4"); err != nil {
		t.Fatal(err)
	}
	if err := sy.Sync(ctx); err != nil {
		t.Errorf("sync after the object was deleted: %v", err)
	}
	if err := sy.Sync(ctx); err != nil {
		t.Errorf("sync with nothing to flush: %v", err)
	}
}
