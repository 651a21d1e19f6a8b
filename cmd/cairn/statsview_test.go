package main

import (
	"testing"
	"time"

	"cairn/meta"
	"cairn/vfs"
)

func TestOpRates(t *testing.T) {
	at := time.Unix(1000, 0)
	a := mountSample{at: at, stats: vfs.Stats{Ops: map[string]meta.OpSummary{
		"fuse.create": {Count: 10, MeanUs: 100},
		"fuse.lookup": {Count: 5, MeanUs: 20},
		"meta.mknod":  {Count: 10, MeanUs: 80},
	}}}
	b := mountSample{at: at.Add(2 * time.Second), stats: vfs.Stats{Ops: map[string]meta.OpSummary{
		"fuse.create": {Count: 30, MeanUs: 200}, // 20 more, 5000 µs more in all: 250 µs each
		"fuse.lookup": {Count: 5, MeanUs: 20},   // idle: not listed
		"fuse.mkdir":  {Count: 2, MeanUs: 50},   // new
		"meta.mknod":  {Count: 40, MeanUs: 80},
	}}}
	got := opRates(a, b, "fuse.")
	want := []opRate{{"create", 10, 250}, {"mkdir", 1, 50}}
	if len(got) != len(want) {
		t.Fatalf("opRates = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("opRates[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
}
