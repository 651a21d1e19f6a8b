package chunk

import (
	"bytes"
	"context"
	"math/rand/v2"
	"sync"
	"testing"

	"cairn/object"
)

// TestDownloadBuffersRecycled reads full-size blocks through a memory cache
// of two blocks: every block evicted gives its buffer back, so downloading
// 64 blocks makes only a few buffers, and every read is still right.
func TestDownloadBuffersRecycled(t *testing.T) {
	const bs = 64 << 10
	s := newTestStore(t, object.NewMem("t"), Config{BlockSize: bs, Readahead: -1, MemCacheSize: 2 * bs})
	data := pattern(3, 32*bs)
	writeSlice(t, s, 1, data)
	written := s.bufs.allocs.Load()
	got := make([]byte, bs)
	for pass := 0; pass < 2; pass++ {
		for off := 0; off < len(data); off += bs {
			if _, err := s.ReadAt(context.Background(), 1, uint32(len(data)), got, uint32(off)); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, data[off:off+bs]) {
				t.Fatalf("pass %d: block at %d differs", pass, off)
			}
		}
	}
	if gets := s.Stats().Gets; gets != 64 {
		t.Fatalf("%d gets, want 64 (the memory cache holds 2 of 32 blocks)", gets)
	}
	// sync.Pool may drop buffers at a garbage collection, so allow some.
	if n := s.bufs.allocs.Load() - written; n > 16 && !raceDetector {
		t.Errorf("%d download buffers made for 64 downloads one after another", n)
	}
}

// TestSharedBlocksUnderEviction has readers race on a few slices through a
// memory cache smaller than what they read, with readahead, so that blocks
// are evicted and their buffers recycled while other readers copy from
// them: every read must still return the written bytes (run with -race).
func TestSharedBlocksUnderEviction(t *testing.T) {
	const bs = 16 << 10
	for _, comp := range []string{"none", "lz4"} {
		s := newTestStore(t, object.NewMem("t"), Config{BlockSize: bs, Compression: comp, Readahead: 4 * bs, MemCacheSize: 3 * bs})
		slices := map[uint64][]byte{}
		for id := uint64(1); id <= 4; id++ {
			slices[id] = pattern(id, 12*bs+int(id)*100)
			writeSlice(t, s, id, slices[id])
		}
		var wg sync.WaitGroup
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(uint64(g), 5))
				for i := 0; i < 200; i++ {
					id := uint64(1 + r.IntN(4))
					want := slices[id]
					off := r.IntN(len(want))
					n := min(r.IntN(3*bs), len(want)-off)
					got := make([]byte, n)
					if _, err := s.ReadAt(context.Background(), id, uint32(len(want)), got, uint32(off)); err != nil {
						t.Errorf("%s slice %d [%d,+%d): %v", comp, id, off, n, err)
						return
					}
					if !bytes.Equal(got, want[off:off+n]) {
						t.Errorf("%s slice %d [%d,+%d): wrong bytes at %d", comp, id, off, n, off+firstDiff(got, want[off:off+n]))
						return
					}
				}
			}()
		}
		wg.Wait()
	}
}

// TestRecycledWriteBuffersKeepHolesZero writes full blocks of 0xff, then
// slices with gaps that land in the recycled buffers: the gaps must read
// as zeros, whether a later write skips over them or nothing ever covers
// the end of the block.
func TestRecycledWriteBuffersKeepHolesZero(t *testing.T) {
	const bs = 64 << 10
	s := newTestStore(t, object.NewMem("t"), Config{BlockSize: bs, Readahead: -1})
	ones := bytes.Repeat([]byte{0xff}, 4*bs)
	writeSlice(t, s, 1, ones)
	wants := map[uint64][]byte{}
	for id := uint64(2); id < 6; id++ {
		want := make([]byte, 2*bs)
		w := s.NewWriter(id)
		for _, r := range [][2]int{{1000, 3000}, {bs / 2, bs/2 + 100}, {bs + 10, bs + 20}, {500, 1500}} {
			if _, err := w.WriteAt(ones[:r[1]-r[0]], uint32(r[0])); err != nil {
				t.Fatal(err)
			}
			copy(want[r[0]:r[1]], ones)
		}
		if err := w.Finish(context.Background(), uint32(len(want))); err != nil {
			t.Fatal(err)
		}
		wants[id] = want
	}
	// Slice 1's four blocks were in flight at once; the 8 blocks after
	// them, two at a time, should have reused those buffers.
	if n := s.bufs.allocs.Load(); n > 6 && !raceDetector {
		t.Errorf("%d buffers made for 12 full blocks written one slice after another", n)
	}
	for id, want := range wants {
		got := make([]byte, len(want))
		if _, err := s.ReadAt(context.Background(), id, uint32(len(want)), got, 0); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("slice %d: byte %d differs (a recycled buffer's old bytes?)", id, firstDiff(got, want))
		}
	}
}
