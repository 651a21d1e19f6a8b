package redis

import (
	"context"
	"testing"
	"time"

	"cairn/meta"
)

// TestOneRoundTrip counts the requests each main operation sends: one.
func TestOneRoundTrip(t *testing.T) {
	e := formatted(t)
	ctx := context.Background()
	newIno := func() meta.Ino {
		ino, err := e.NextInodes(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		return ino
	}
	dirIno, fileIno, sliceID := newIno(), newIno(), uint64(0)
	var err error
	if sliceID, err = e.NextSlices(ctx, 1); err != nil {
		t.Fatal(err)
	}
	mode := uint16(0600)
	ops := []struct {
		name string
		run  func() error
	}{
		{"mkdir", func() error {
			_, err := e.Mknod(ctx, meta.RootCred, meta.RootIno, "d", dirIno, meta.TypeDirectory, 0755, 0, "")
			return err
		}},
		{"create", func() error {
			_, err := e.Mknod(ctx, meta.RootCred, dirIno, "f", fileIno, meta.TypeFile, 0644, 0, "")
			return err
		}},
		{"lookup", func() error { _, _, err := e.Lookup(ctx, dirIno, "f"); return err }},
		{"getattr", func() error { _, err := e.GetAttr(ctx, fileIno); return err }},
		{"setattr", func() error { _, err := e.SetAttr(ctx, meta.RootCred, fileIno, meta.SetAttr{Mode: &mode}); return err }},
		{"setxattr", func() error { return e.SetXattr(ctx, meta.RootCred, fileIno, "user.a", []byte("v"), 0) }},
		{"write", func() error {
			_, _, err := e.Write(ctx, fileIno, 0, meta.Slice{ID: sliceID, Size: 4096, Len: 4096}, time.Now().UnixNano())
			return err
		}},
		{"rename", func() error {
			_, _, _, err := e.Rename(ctx, meta.RootCred, dirIno, "f", meta.RootIno, "g", 0, 1)
			return err
		}},
		{"unlink", func() error { _, _, err := e.Unlink(ctx, meta.RootCred, meta.RootIno, "g", 1); return err }},
	}
	for _, op := range ops {
		before := e.Stats()
		if err := op.run(); err != nil {
			t.Fatalf("%s: %v", op.name, err)
		}
		after := e.Stats()
		if n := after.RoundTrips - before.RoundTrips; n != 1 {
			t.Errorf("%s took %d round trips, want 1", op.name, n)
		}
	}
}
