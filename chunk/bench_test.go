package chunk

import (
	"context"
	"fmt"
	"testing"

	"cairn/object"
)

// BenchmarkWrite writes 64 MiB slices in 1 MiB writes to a local-directory
// store, as vfs does for a big sequential file.
func BenchmarkWrite(b *testing.B) {
	for _, comp := range []string{"none", "lz4", "zstd"} {
		b.Run(comp, func(b *testing.B) {
			obj, _ := object.NewFile(b.TempDir())
			s := newTestStore(b, obj, Config{Compression: comp})
			data := benchData()
			b.SetBytes(MaxSliceSize)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				w := s.NewWriter(uint64(i + 1))
				for off := 0; off < MaxSliceSize; off += len(data) {
					if _, err := w.WriteAt(data, uint32(off)); err != nil {
						b.Fatal(err)
					}
					w.FlushTo(uint32(off + len(data)))
				}
				if err := w.Finish(context.Background(), MaxSliceSize); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRead reads 64 MiB slices sequentially in 1 MiB reads from a
// local-directory store, each slice once, with readahead and no disk cache.
func BenchmarkRead(b *testing.B) {
	for _, comp := range []string{"none", "lz4", "zstd"} {
		b.Run(comp, func(b *testing.B) {
			obj, _ := object.NewFile(b.TempDir())
			s := newTestStore(b, obj, Config{Compression: comp})
			data := benchData()
			const slices = 4
			for id := uint64(1); id <= slices; id++ {
				w := s.NewWriter(id)
				for off := 0; off < MaxSliceSize; off += len(data) {
					w.WriteAt(data, uint32(off))
				}
				if err := w.Finish(context.Background(), MaxSliceSize); err != nil {
					b.Fatal(err)
				}
			}
			buf := make([]byte, 1<<20)
			b.SetBytes(MaxSliceSize)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				// A new Store each round so memory caches start cold.
				if i%slices == 0 {
					b.StopTimer()
					s.Close()
					s = newTestStore(b, obj, Config{Compression: comp})
					b.StartTimer()
				}
				id := uint64(i%slices + 1)
				for off := 0; off < MaxSliceSize; off += len(buf) {
					if _, err := s.ReadAt(context.Background(), id, MaxSliceSize, buf, uint32(off)); err != nil {
						b.Fatal(fmt.Errorf("read: %w", err))
					}
				}
			}
		})
	}
}

// benchData is 1 MiB of half-compressible bytes: random runs and text.
func benchData() []byte {
	d := pattern(42, 1<<20)
	for i := 0; i < len(d); i += 256 {
		copy(d[i:i+128], "cairn benchmark data, compressible half of every 256 bytes; cairn benchmark data, compressible half of every 256 bytes. xxxxxx")
	}
	return d
}
