package chunk

import (
	"bytes"
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"cairn/internal/testenv"
	"cairn/object"
)

// TestMinIOStoppedDuringWrites stops the server while slices are being
// written and starts it again: every slice is either acknowledged (Finish
// returned nil) or reported failed, and every acknowledged slice reads back
// exactly, through a fresh Store, once the server is back. A slice whose
// Finish failed while the server was down succeeds when Finish is called
// again after the restart.
func TestMinIOStoppedDuringWrites(t *testing.T) {
	m := testenv.MinIO(t)
	obj, err := object.Open("s3", m.URL("faults"), object.Options{
		AccessKey: m.AccessKey, SecretKey: m.SecretKey, Retries: 1, Timeout: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := obj.Create(context.Background()); err != nil {
		t.Fatal(err)
	}
	cfg := Config{BlockSize: 256 << 10, Compression: "lz4", Uploaders: 4}
	s := newTestStore(t, obj, cfg)
	acked := map[uint64][]byte{}
	var failed []*Writer
	failedData := map[uint64][]byte{}
	write := func(id uint64, midway func()) {
		data := pattern(id, 600<<10+int(id))
		copy(data, bytes.Repeat([]byte("compressible "), 10000))
		w := s.NewWriter(id)
		for off := 0; off < len(data); off += 100 << 10 {
			end := min(off+100<<10, len(data))
			if _, err := w.WriteAt(data[off:end], uint32(off)); err != nil {
				t.Fatal(err)
			}
			w.FlushTo(uint32(end))
			if off == 300<<10 && midway != nil {
				midway() // uploads of this slice are under way
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := w.Finish(ctx, uint32(len(data))); err != nil {
			failed = append(failed, w)
			failedData[id] = data
			t.Logf("slice %d not acknowledged: %v", id, err)
			return
		}
		acked[id] = data
	}
	for id := uint64(1); id <= 5; id++ {
		write(id, nil)
	}
	write(6, m.Stop)
	write(7, nil)
	write(8, nil)
	m.Start()
	for id := uint64(9); id <= 12; id++ {
		write(id, nil)
	}
	if len(failed) == 0 {
		t.Error("no write failed while the server was down")
	}
	for _, w := range failed {
		if err := w.Finish(context.Background(), uint32(len(failedData[w.ID()]))); err != nil {
			t.Errorf("Finish of slice %d again after the restart: %v", w.ID(), err)
			continue
		}
		acked[w.ID()] = failedData[w.ID()]
	}
	s.Close()

	fresh := newTestStore(t, obj, cfg)
	for id, data := range acked {
		got := make([]byte, len(data))
		if _, err := fresh.ReadAt(context.Background(), id, uint32(len(data)), got, 0); err != nil {
			t.Errorf("read acknowledged slice %d: %v", id, err)
			continue
		}
		if !bytes.Equal(got, data) {
			t.Errorf("acknowledged slice %d reads back different bytes", id)
		}
	}
	if len(acked) != 12 {
		t.Errorf("%d of 12 slices stored in the end", len(acked))
	}
}

func TestMinIOAgainstModel(t *testing.T) {
	m := testenv.MinIO(t)
	n := 0
	runModel(t, func(t *testing.T) object.Store {
		n++
		obj, err := object.Open("s3", m.URL(fmt.Sprintf("model-%d", n)), object.Options{AccessKey: m.AccessKey, SecretKey: m.SecretKey})
		if err != nil {
			t.Fatal(err)
		}
		if err := obj.Create(context.Background()); err != nil {
			t.Fatal(err)
		}
		return obj
	})
}

// BenchmarkMinIO measures block write and read throughput against MinIO on
// loopback with the default block size, at several upload concurrencies
// and readahead depths. Reads start from a Store with cold caches and go
// through slices written by an earlier round, 128 KiB at a time, as FUSE
// requests do.
func BenchmarkMinIO(b *testing.B) {
	m := testenv.MinIO(b)
	obj, err := object.Open("s3", m.URL("bench"), object.Options{AccessKey: m.AccessKey, SecretKey: m.SecretKey})
	if err != nil {
		b.Fatal(err)
	}
	if err := obj.Create(context.Background()); err != nil {
		b.Fatal(err)
	}
	data := benchData()
	var id atomic.Uint64
	for _, uploaders := range []int{4, 10, 20} {
		b.Run(fmt.Sprintf("write/uploaders=%d", uploaders), func(b *testing.B) {
			s := newTestStore(b, obj, Config{Uploaders: uploaders})
			b.SetBytes(MaxSliceSize)
			for i := 0; i < b.N; i++ {
				w := s.NewWriter(id.Add(1))
				for off := 0; off < MaxSliceSize; off += len(data) {
					w.WriteAt(data, uint32(off))
					w.FlushTo(uint32(off + len(data)))
				}
				if err := w.Finish(context.Background(), MaxSliceSize); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	written := id.Load()
	for _, blocks := range []int{4, 8, 16} {
		b.Run(fmt.Sprintf("read/readahead=%dblocks", blocks), func(b *testing.B) {
			buf := make([]byte, 128<<10)
			b.SetBytes(MaxSliceSize)
			for i := 0; i < b.N; i++ {
				s := newTestStore(b, obj, Config{Readahead: blocks * defaultBlockSize, Downloaders: max(10, blocks)})
				slice := uint64(i)%written + 1
				for off := 0; off < MaxSliceSize; off += len(buf) {
					if _, err := s.ReadAt(context.Background(), slice, MaxSliceSize, buf, uint32(off)); err != nil {
						b.Fatal(fmt.Errorf("read: %w", err))
					}
				}
				s.Close()
			}
		})
	}
}
