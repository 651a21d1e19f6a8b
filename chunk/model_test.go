package chunk

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"cairn/object"
)

// TestRandomAgainstModel writes random slices with random, overlapping,
// out-of-order writes and checks random reads against a byte-slice model.
// CAIRN_SEED=n replays a failure.
func TestRandomAgainstModel(t *testing.T) {
	runModel(t, func(t *testing.T) object.Store { return object.NewMem("model") })
}

// runModel runs the model test over stores from newObj, a fresh one for
// each compression.
func runModel(t *testing.T, newObj func(t *testing.T) object.Store) {
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("CAIRN_SEED"); v != "" {
		seed, _ = strconv.ParseUint(v, 10, 64)
	}
	r := rand.New(rand.NewPCG(seed, 1))
	defer func() {
		if t.Failed() {
			t.Logf("seed %d (rerun with CAIRN_SEED=%d)", seed, seed)
		}
	}()
	for _, comp := range []string{"none", "lz4", "zstd"} {
		cfg := Config{BlockSize: 1000 + r.IntN(9000), Compression: comp, BufferSize: 64 << 10, Uploaders: 3, Readahead: -1}
		if r.IntN(2) == 0 {
			cfg.Readahead = 0
			cfg.CacheDir = t.TempDir()
			cfg.CacheSize = 50 << 10
		}
		s := newTestStore(t, newObj(t), cfg)
		models := map[uint64][]byte{}
		for id := uint64(1); id <= 20; id++ {
			size := r.IntN(100000)
			model := make([]byte, size)
			w := s.NewWriter(id)
			flushed := 0
			for i := 0; i < r.IntN(30); i++ {
				if size == flushed {
					break
				}
				off := flushed + r.IntN(size-flushed)
				n := r.IntN(size - off + 1)
				buf := make([]byte, n)
				for j := range buf {
					buf[j] = byte(r.IntN(4)) // compressible, and not all zero
				}
				if _, err := w.WriteAt(buf, uint32(off)); err != nil {
					t.Fatalf("%s slice %d: WriteAt(%d, %d): %v", comp, id, off, n, err)
				}
				copy(model[off:], buf)
				if r.IntN(4) == 0 {
					flushed += r.IntN(size - flushed + 1)
					if err := w.FlushTo(uint32(flushed)); err != nil {
						t.Fatalf("FlushTo: %v", err)
					}
				}
			}
			if err := w.Finish(context.Background(), uint32(size)); err != nil {
				t.Fatalf("%s slice %d: Finish: %v", comp, id, err)
			}
			models[id] = model
		}
		for i := 0; i < 300; i++ {
			id := uint64(1 + r.IntN(20))
			model := models[id]
			off := r.IntN(len(model) + 1)
			n := r.IntN(len(model) - off + 1)
			got := make([]byte, n)
			if _, err := s.ReadAt(context.Background(), id, uint32(len(model)), got, uint32(off)); err != nil {
				t.Fatalf("%s slice %d: ReadAt(%d, %d): %v", comp, id, off, n, err)
			}
			if !bytes.Equal(got, model[off:off+n]) {
				t.Fatalf("%s (block size %d) slice %d: ReadAt(%d, %d) differs from the model at byte %d",
					comp, cfg.BlockSize, id, off, n, off+firstDiff(got, model[off:off+n]))
			}
		}
		if st := s.Stats(); st.BufferBytes != 0 {
			t.Errorf("%s: %d bytes of buffer still held after every Finish", comp, st.BufferBytes)
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return len(a)
}

func newTestStore(t testing.TB, obj object.Store, cfg Config) *Store {
	t.Helper()
	s, err := New(obj, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// writeSlice stores data as slice id in one sequential pass of 4 KiB writes.
func writeSlice(t testing.TB, s *Store, id uint64, data []byte) {
	t.Helper()
	w := s.NewWriter(id)
	for off := 0; off < len(data); off += 4096 {
		end := min(off+4096, len(data))
		if _, err := w.WriteAt(data[off:end], uint32(off)); err != nil {
			t.Fatal(err)
		}
		if err := w.FlushTo(uint32(end)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(context.Background(), uint32(len(data))); err != nil {
		t.Fatalf("Finish slice %d: %v", id, err)
	}
}

func pattern(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}
