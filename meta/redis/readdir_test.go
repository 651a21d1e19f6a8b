package redis

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"cairn/meta"
)

// TestReaddirLeavesOutGoneInodes: a directory member whose inode's
// attributes are gone is no entry of a listing with attributes, and the
// page is filled up from the members after it in the same call, so that
// only the last page is short.
func TestReaddirLeavesOutGoneInodes(t *testing.T) {
	e := formatted(t)
	ctx := context.Background()
	var inos []meta.Ino
	for i := range 6 {
		ino, err := e.NextInodes(ctx, 1)
		if err == nil {
			_, err = e.Mknod(ctx, meta.RootCred, meta.RootIno, fmt.Sprint("f", i), ino, meta.TypeFile, 0644, 0, "")
		}
		if err != nil {
			t.Fatal(err)
		}
		inos = append(inos, ino)
	}
	for _, gone := range []meta.Ino{inos[1], inos[2]} {
		if err := e.rdb.Del(ctx, e.key("i", uint64(gone))).Err(); err != nil {
			t.Fatal(err)
		}
	}
	names := func(es []meta.Entry) (out []string) {
		for _, en := range es {
			out = append(out, en.Name)
		}
		return out
	}
	before := e.stats.roundTrips.Load()
	page, err := e.Readdir(ctx, meta.RootIno, "", 3, true)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(page), []string{"f0", "f3", "f4"}; !slices.Equal(got, want) {
		t.Errorf("first page of 3 with attributes: %v, want %v", got, want)
	}
	if n := e.stats.roundTrips.Load() - before; n != 1 {
		t.Errorf("the page cost %d round trips, want 1", n)
	}
	rest, err := e.Readdir(ctx, meta.RootIno, "f4", 3, true)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(rest), []string{"f5"}; !slices.Equal(got, want) {
		t.Errorf("page after f4: %v, want %v", got, want)
	}
	all, err := e.Readdir(ctx, meta.RootIno, "", 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(all); got != 6 {
		t.Errorf("a listing without attributes holds %d members, want all 6", got)
	}
}
