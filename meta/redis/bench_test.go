package redis

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"cairn/internal/testenv"
	"cairn/meta"
)

// BenchmarkOps measures the main operations against a redis-server with
// appendfsync always (as the design's reference figures), reporting ns/op
// and round trips per operation.
func BenchmarkOps(b *testing.B) {
	s := testenv.Redis(b, "--appendfsync", "always")
	ctx := context.Background()
	e := openURL(b, s.URL(0))
	if err := e.Init(ctx, meta.Format{Name: "bench", Version: meta.FormatVersion}, false); err != nil {
		b.Fatal(err)
	}
	mkIno := func() meta.Ino {
		ino, err := e.NextInodes(ctx, 1)
		if err != nil {
			b.Fatal(err)
		}
		return ino
	}
	mk := func(parent meta.Ino, name string, typ meta.FileType) meta.Ino {
		ino := mkIno()
		if _, err := e.Mknod(ctx, meta.RootCred, parent, name, ino, typ, 0755, 0, ""); err != nil {
			b.Fatal(err)
		}
		return ino
	}
	dirN := 0
	newDir := func() meta.Ino { dirN++; return mk(meta.RootIno, fmt.Sprintf("bench%d", dirN), meta.TypeDirectory) }
	// measure runs op b.N times with its own setup, reporting rtt/op.
	measure := func(b *testing.B, setup func(n int), op func(i int) error) {
		if setup != nil {
			setup(b.N)
		}
		b.ResetTimer()
		before := e.Stats().RoundTrips
		for i := 0; i < b.N; i++ {
			if err := op(i); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(e.Stats().RoundTrips-before)/float64(b.N), "rtt/op")
	}

	// The floor: one plain SET (a write the server must fsync) and GET.
	b.Run("floor_set", func(b *testing.B) {
		measure(b, nil, func(i int) error { return e.rdb.Set(ctx, "bench:floor", i, 0).Err() })
	})
	b.Run("floor_get", func(b *testing.B) {
		measure(b, nil, func(int) error { return e.rdb.Get(ctx, "bench:floor").Err() })
	})
	b.Run("mkdir", func(b *testing.B) {
		d := newDir()
		inos := make([]meta.Ino, b.N)
		measure(b, func(n int) {
			for i := range inos {
				inos[i] = mkIno()
			}
		}, func(i int) error {
			_, err := e.Mknod(ctx, meta.RootCred, d, fmt.Sprint(i), inos[i], meta.TypeDirectory, 0755, 0, "")
			return err
		})
	})
	b.Run("create", func(b *testing.B) {
		d := newDir()
		inos := make([]meta.Ino, b.N)
		measure(b, func(n int) {
			for i := range inos {
				inos[i] = mkIno()
			}
		}, func(i int) error {
			_, err := e.Mknod(ctx, meta.RootCred, d, fmt.Sprint(i), inos[i], meta.TypeFile, 0644, 0, "")
			return err
		})
	})
	b.Run("rename", func(b *testing.B) {
		d := newDir()
		measure(b, func(n int) {
			for i := 0; i < n; i++ {
				mk(d, fmt.Sprint(i), meta.TypeFile)
			}
		}, func(i int) error {
			_, _, _, err := e.Rename(ctx, meta.RootCred, d, fmt.Sprint(i), d, fmt.Sprint("r", i), 0, 0)
			return err
		})
	})
	b.Run("unlink", func(b *testing.B) {
		d := newDir()
		measure(b, func(n int) {
			for i := 0; i < n; i++ {
				mk(d, fmt.Sprint(i), meta.TypeFile)
			}
		}, func(i int) error {
			_, _, err := e.Unlink(ctx, meta.RootCred, d, fmt.Sprint(i), 1)
			return err
		})
	})
	d := newDir()
	f := mk(d, "f", meta.TypeFile)
	b.Run("lookup", func(b *testing.B) {
		measure(b, nil, func(int) error { _, _, err := e.Lookup(ctx, d, "f"); return err })
	})
	b.Run("lookup_missing", func(b *testing.B) {
		measure(b, nil, func(int) error {
			if _, _, err := e.Lookup(ctx, d, "missing"); !errors.Is(err, meta.ErrNotFound) {
				return fmt.Errorf("lookup of a missing name: %v, want ENOENT", err)
			}
			return nil
		})
	})
	b.Run("getattr", func(b *testing.B) {
		measure(b, nil, func(int) error { _, err := e.GetAttr(ctx, f); return err })
	})
	b.Run("setattr", func(b *testing.B) {
		mode := uint16(0600)
		measure(b, nil, func(int) error {
			_, err := e.SetAttr(ctx, meta.RootCred, f, meta.SetAttr{Mode: &mode})
			return err
		})
	})
	b.Run("setxattr", func(b *testing.B) {
		measure(b, nil, func(i int) error { return e.SetXattr(ctx, meta.RootCred, f, "user.k", []byte("v"), 0) })
	})
	b.Run("write", func(b *testing.B) {
		g := mk(d, fmt.Sprint("w", b.N), meta.TypeFile)
		measure(b, nil, func(i int) error {
			idx := uint32(i / 1000) // keep each chunk's list short, as compaction would
			_, _, err := e.Write(ctx, g, idx, meta.Slice{Pos: uint32(i%1000) * 4096, ID: uint64(i + 1), Size: 4096, Len: 4096}, time.Now().UnixNano())
			return err
		})
	})
	b.Run("readdir_1k", func(b *testing.B) {
		big := newDir()
		for i := 0; i < 1000; i++ {
			mk(big, fmt.Sprintf("entry%04d", i), meta.TypeFile)
		}
		measure(b, nil, func(int) error {
			ents, err := e.Readdir(ctx, big, "", 1000, true)
			if err == nil && len(ents) != 1000 {
				err = fmt.Errorf("readdir listed %d entries", len(ents))
			}
			return err
		})
	})
}
