package inspect

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"cairn/internal/testenv"
	"cairn/meta"
	"cairn/meta/engines"
	"cairn/meta/kv"
)

// benchTree fills engine e with 20 directories of 1,000 files each under
// the root, made through a meta.Client with statistics.
func benchTree(b *testing.B, e meta.Engine) {
	ctx := context.Background()
	if err := e.Init(ctx, meta.Format{Name: "bench", BlockSize: 4 << 20, Version: meta.FormatVersion}, true); err != nil {
		b.Fatal(err)
	}
	c := meta.NewClient(e, meta.ClientConfig{})
	for d := range 20 {
		dir, _, err := c.Mknod(ctx, meta.RootCred, meta.RootIno, fmt.Sprint("d", d), meta.TypeDirectory, 0o755, 0, "")
		if err != nil {
			b.Fatal(err)
		}
		for f := range 1000 {
			ino, _, err := c.Mknod(ctx, meta.RootCred, dir, fmt.Sprint("f", f), meta.TypeFile, 0o644, 0, "")
			if err != nil {
				b.Fatal(err)
			}
			if f%100 == 0 { // some files with data, so that space is not all zero
				id, err := c.NewSliceID(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if _, _, err := c.Write(ctx, ino, 0, meta.Slice{ID: id, Size: 5000, Len: 5000}, time.Now().UnixNano()); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	if err := c.FlushDirStats(ctx); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSummary summarizes a tree of 20,000 files in 20 directories
// by counting every directory and from the directory statistics, on the
// in-memory engine, SQLite and Redis (appendfsync always), reporting the
// engine's round trips per summary (rtt/op). The two alternate, rounds
// times on one tree (count, statistics, count#01, statistics#01, ...).
func BenchmarkSummary(b *testing.B) {
	const rounds = 3
	for _, engine := range []struct {
		name string
		open func(b *testing.B) meta.Engine
	}{
		{"mem", func(*testing.B) meta.Engine { return kv.OpenMem() }},
		{"sqlite", func(b *testing.B) meta.Engine { return openURL(b, "sqlite3://"+filepath.Join(b.TempDir(), "vol.db")) }},
		{"redis", func(b *testing.B) meta.Engine {
			return openURL(b, testenv.Redis(b, "--appendfsync", "always").URL(1))
		}},
	} {
		b.Run(engine.name, func(b *testing.B) {
			e := engine.open(b)
			defer e.Close()
			benchTree(b, e)
			for range rounds {
				for _, count := range []bool{true, false} {
					how := "statistics"
					if count {
						how = "count"
					}
					b.Run(how, func(b *testing.B) { benchSummary(b, e, count) })
				}
			}
		})
	}
}

func benchSummary(b *testing.B, e meta.Engine, count bool) {
	ctx := context.Background()
	before := e.Stats().RoundTrips
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := Summarize(ctx, e, meta.RootIno, SummaryOptions{Top: 10, Workers: 16, Count: count})
		if err != nil {
			b.Fatal(err)
		}
		if s.Files != 20000 || s.Directories != 21 {
			b.Fatalf("summary found %d files and %d directories, want 20000 and 21", s.Files, s.Directories)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(e.Stats().RoundTrips-before)/float64(b.N), "rtt/op")
}

func openURL(b *testing.B, url string) meta.Engine {
	e, err := engines.Open(url)
	if err != nil {
		b.Fatal(err)
	}
	return e
}
