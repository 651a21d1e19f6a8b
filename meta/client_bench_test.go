package meta_test

import (
	"path/filepath"
	"testing"
	"time"

	"cairn/meta"
	"cairn/meta/engines"
)

// BenchmarkClientMutation is a mkdir and an rmdir through meta.Client, on
// SQLite in a temporary directory (a durable write each) and on the
// in-memory engine (where the client's own cost shows): what the Tracker
// every Client runs behind costs when no migration runs.
func BenchmarkClientMutation(b *testing.B) {
	for _, engine := range []struct{ name, url string }{
		{"sqlite", "sqlite3://" + filepath.Join(b.TempDir(), "bench.db")},
		{"mem", "mem://"},
	} {
		b.Run(engine.name, func(b *testing.B) {
			e, err := engines.Open(engine.url)
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			ctx := b.Context()
			if err := e.Init(ctx, meta.Format{Name: "bench", BlockSize: 4 << 20, Version: meta.FormatVersion}, false); err != nil {
				b.Fatal(err)
			}
			c := meta.NewClient(e, meta.ClientConfig{Heartbeat: time.Hour, NoDirStats: true})
			if err := c.Start(ctx); err != nil {
				b.Fatal(err)
			}
			defer c.Close(ctx)
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := c.Mknod(ctx, meta.RootCred, meta.RootIno, "d", meta.TypeDirectory, 0755, 0, ""); err != nil {
					b.Fatal(err)
				}
				if err := c.Rmdir(ctx, meta.RootCred, meta.RootIno, "d"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
