package metatest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"cairn/meta"
)

// BenchDirStats measures create, write and unlink through a meta.Client
// with and without directory statistics, on a formatted engine from
// open, reporting ns/op and the engine's round trips per operation
// (rtt/op): statistics must not add one (their flush is one call a
// second, whatever the rate).
func BenchDirStats(b *testing.B, open func(b *testing.B) meta.Engine) {
	for _, mode := range []struct {
		name string
		off  bool
	}{{"without", true}, {"with", false}} {
		b.Run(mode.name, func(b *testing.B) {
			ctx := context.Background()
			e := open(b)
			if err := e.Init(ctx, volumeFormat("bench"), true); err != nil {
				b.Fatal(err)
			}
			c := meta.NewClient(e, meta.ClientConfig{Heartbeat: time.Hour, NoDirStats: mode.off})
			if err := c.Start(ctx); err != nil {
				b.Fatal(err)
			}
			defer c.Close(ctx)
			if c.DirStatsOn() == mode.off {
				b.Fatalf("statistics on: %v, want %v", c.DirStatsOn(), !mode.off)
			}
			run := 0
			newDir := func(b *testing.B) meta.Ino {
				run++
				d, _, err := c.Mknod(ctx, meta.RootCred, meta.RootIno, fmt.Sprintf("d%d-%d", time.Now().UnixNano(), run), meta.TypeDirectory, 0o755, 0, "")
				if err != nil {
					b.Fatal(err)
				}
				return d
			}
			create := func(b *testing.B, dir meta.Ino, i int) meta.Ino {
				ino, _, err := c.Mknod(ctx, meta.RootCred, dir, fmt.Sprintf("f%d", i), meta.TypeFile, 0o644, 0, "")
				if err != nil {
					b.Fatal(err)
				}
				return ino
			}
			measure := func(b *testing.B, setup func(b *testing.B) func(i int)) {
				op := setup(b)
				before := e.Stats().RoundTrips
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					op(i)
				}
				b.StopTimer()
				b.ReportMetric(float64(e.Stats().RoundTrips-before)/float64(b.N), "rtt/op")
			}
			b.Run("create", func(b *testing.B) {
				measure(b, func(b *testing.B) func(int) {
					dir := newDir(b)
					return func(i int) { create(b, dir, i) }
				})
			})
			b.Run("write", func(b *testing.B) {
				measure(b, func(b *testing.B) func(int) {
					f := create(b, newDir(b), 0)
					return func(i int) {
						id, err := c.NewSliceID(ctx)
						if err != nil {
							b.Fatal(err)
						}
						s := meta.Slice{ID: id, Size: 4096, Len: 4096}
						if _, _, err := c.Write(ctx, f, uint32(i), s, time.Now().UnixNano()); err != nil {
							b.Fatal(err)
						}
					}
				})
			})
			b.Run("unlink", func(b *testing.B) {
				measure(b, func(b *testing.B) func(int) {
					dir := newDir(b)
					for i := 0; i < b.N; i++ {
						create(b, dir, i)
					}
					return func(i int) {
						if _, _, err := c.Unlink(ctx, meta.RootCred, dir, fmt.Sprintf("f%d", i)); err != nil {
							b.Fatal(err)
						}
					}
				})
			})
		})
	}
}
