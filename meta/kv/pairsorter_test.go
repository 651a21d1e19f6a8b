package kv

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The sorter against a model (a map, the last value of a key winning):
// pairs in order, in reverse, in no order with repeated keys, with a
// buffer small enough for many runs and for runs merged before the end.
func TestPairSorter(t *testing.T) {
	seed := rand.Uint64()
	for _, tc := range []struct {
		name        string
		pairs       int
		keySpace    int // 0: keys in the order added
		reverse     bool
		bufferBytes int
		wantFiles   bool
		freeBuffer  bool // the buffer written out before the merge
	}{
		{name: "in memory", pairs: 500, keySpace: 100, bufferBytes: 1 << 20},
		{name: "in order, one run", pairs: 20000, bufferBytes: 4 << 10, wantFiles: true},
		{name: "reversed", pairs: 5000, reverse: true, bufferBytes: 4 << 10, wantFiles: true},
		{name: "random with repeats", pairs: 20000, keySpace: 3000, bufferBytes: 2 << 10, wantFiles: true},
		{name: "more runs than one merge reads", pairs: 40000, keySpace: 1 << 30, bufferBytes: 1 << 10, wantFiles: true},
		{name: "in memory, buffer kept", pairs: 500, keySpace: 100, bufferBytes: 1 << 20, freeBuffer: true},
		{name: "random, buffer freed", pairs: 20000, keySpace: 3000, bufferBytes: 2 << 10, wantFiles: true, freeBuffer: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			random := rand.New(rand.NewPCG(seed, uint64(len(tc.name))))
			dir := t.TempDir()
			s := newPairSorter(dir, tc.bufferBytes)
			defer s.close()
			model := map[string]string{}
			for i := range tc.pairs {
				n := i
				switch {
				case tc.reverse:
					n = tc.pairs - i
				case tc.keySpace > 0:
					n = random.IntN(tc.keySpace)
				}
				key := fmt.Appendf(nil, "k%010d", n)
				value := fmt.Appendf(nil, "v%d-%d", i, random.IntN(1000))
				model[string(key)] = string(value)
				if err := s.add(key, value); err != nil {
					t.Fatal(err)
				}
			}
			if tc.freeBuffer {
				if err := s.freeBuffer(); err != nil {
					t.Fatal(err)
				}
				if tc.wantFiles == (s.arena != nil) {
					t.Errorf("buffer kept: %v, with %d runs", s.arena != nil, len(s.runs))
				}
			}
			var got [][2]string
			var last []byte
			err := s.each(func(key, value []byte) error {
				if last != nil && bytes.Compare(key, last) <= 0 {
					return fmt.Errorf("key %q after %q", key, last)
				}
				last = append(last[:0], key...)
				got = append(got, [2]string{string(key), string(value)})
				return nil
			})
			if err != nil {
				t.Fatalf("%v (seed %d)", err, seed)
			}
			keys := make([]string, 0, len(model))
			for k := range model {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			if len(got) != len(keys) {
				t.Fatalf("%d pairs, want %d (seed %d)", len(got), len(keys), seed)
			}
			for i, k := range keys {
				if got[i] != [2]string{k, model[k]} {
					t.Fatalf("pair %d: %q, want %q=%q (seed %d)", i, got[i], k, model[k], seed)
				}
			}
			// each (and freeBuffer) waited for the last spill: its run is
			// counted here.
			if tc.wantFiles != (len(s.runs) > 0) {
				t.Errorf("runs on disk: %d (seed %d)", len(s.runs), seed)
			}
			if tc.keySpace == 0 && !tc.reverse && len(s.runs) != 1 {
				t.Errorf("pairs added in order make %d runs, want 1", len(s.runs))
			}
			if len(s.runs) > maxMergeRuns {
				t.Errorf("%d runs, more than one merge reads (seed %d)", len(s.runs), seed)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("run files left in the directory: %d", len(entries))
			}
		})
	}
}

// A spill that fails on its goroutine (the sort directory is gone) fails
// the add, freeBuffer or each after it, and the sorter still closes.
func TestPairSorterSpillError(t *testing.T) {
	for _, last := range []string{"each", "freeBuffer"} {
		t.Run(last, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "sort")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			s := newPairSorter(dir, 1<<10)
			defer s.close()
			if err := os.Remove(dir); err != nil {
				t.Fatal(err)
			}
			var err error
			// Pairs of 12 bytes, enough for one spill and not a second:
			// the spill's error can only come from the call after them.
			for i := 0; i < 120 && err == nil; i++ {
				err = s.add(fmt.Appendf(nil, "k%010d", 120-i), []byte("v"))
			}
			if err != nil {
				t.Fatalf("an add failed: %v; the test wants the error from %s", err, last)
			}
			if last == "each" {
				err = s.each(func(key, value []byte) error { return nil })
			} else {
				err = s.freeBuffer()
			}
			if err == nil || !strings.Contains(err.Error(), "sort the load's keys") {
				t.Errorf("%s after a failed spill: %v, want the spill's error", last, err)
			}
		})
	}
}
