package vfs

import (
	"fmt"
	"syscall"
	"testing"

	"cairn/meta"
)

// BenchmarkSequentialWrite writes 1 MiB at a time through the VFS into a
// memory store and engine: the cost of the write path itself.
func BenchmarkSequentialWrite(b *testing.B) {
	v := newTestVFSWith(b, nil, 64<<20, Config{})
	fh, _, err := v.Create(ctx, meta.RootCred, meta.RootIno, "seq", 0644, syscall.O_RDWR)
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 1<<20)
	b.SetBytes(int64(len(buf)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := v.Write(ctx, fh, buf, uint64(i)*uint64(len(buf))); err != nil {
			b.Fatal(err)
		}
	}
	if err := v.Fsync(ctx, fh); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSmallFile creates, writes 4 KiB to and closes one file per op,
// and reports engine round trips per file.
func BenchmarkSmallFile(b *testing.B) {
	v := newTestVFS(b, nil, Config{})
	data := make([]byte, 4096)
	start := v.Client().Engine().Stats().RoundTrips
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fh, _, err := v.Create(ctx, meta.RootCred, meta.RootIno, fmt.Sprintf("f%d", i), 0644, syscall.O_RDWR)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := v.Write(ctx, fh, data, 0); err != nil {
			b.Fatal(err)
		}
		if err := v.Flush(ctx, fh, 0); err != nil {
			b.Fatal(err)
		}
		if err := v.Release(ctx, fh, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	rtts := v.Client().Engine().Stats().RoundTrips - start
	b.ReportMetric(float64(rtts)/float64(b.N), "rtt/op")
}
