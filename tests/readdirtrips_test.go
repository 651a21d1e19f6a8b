package tests

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// TestReaddirRoundTrips: listing a directory that fits in one page of the
// engine costs that one page, with the attributes of every entry: the
// short page is the end, no empty page is asked for after it, and the
// opendir takes the directory's attributes from the client's cache.
func TestReaddirRoundTrips(t *testing.T) {
	v := roundTripVolume(t, "0", "sqlite3", "redis", "postgres", "mysql")
	if err := os.Mkdir(v.path("d"), 0o755); err != nil {
		t.Fatal(err)
	}
	const entries = 300
	for i := 0; i < entries; i++ {
		if err := os.WriteFile(v.path("d", fmt.Sprintf("f%03d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const listings = 30
	before, start := engineRoundTrips(t, v), time.Now()
	for i := 0; i < listings; i++ {
		es, err := os.ReadDir(v.path("d"))
		if err != nil {
			t.Fatal(err)
		}
		if len(es) != entries {
			t.Fatalf("listed %d entries, want %d", len(es), entries)
		}
	}
	// Heartbeats may come in between, and each second the directory
	// statistics' flush and (every 3 s) the quotas' refresh.
	background := 2 + 2*uint64(time.Since(start)/time.Second+1)
	if got := engineRoundTrips(t, v) - before; got > listings+background {
		t.Errorf("%d listings of %d entries cost %d round trips, want at most %d and %d in the background", listings, entries, got, listings, background)
	}
}
