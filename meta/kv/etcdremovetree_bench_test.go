package kv

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cairn/internal/testenv"
	"cairn/meta"
)

// BenchmarkEtcdRemoveTree removes a tree of 4,000 empty files in 20
// directories through the client's RemoveTree, as the trash purge and
// 'cairn rmr' do, on the test etcd cluster, and counts the requests and
// the transactions re-run after a conflict. Run it with -benchtime 1x.
func BenchmarkEtcdRemoveTree(b *testing.B) {
	c := testenv.Etcd(b)
	for i := range b.N {
		e, err := OpenEtcdURL(c.URL(fmt.Sprintf("rmtree%d-%d", time.Now().UnixNano(), i)))
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		f := meta.Format{Name: "bench", UUID: "0b7c3c9e-5d47-4a8e-9d1f-2f1c7e6a9b01", Storage: "mem", BlockSize: 4 << 20, Compression: "none", Version: meta.FormatVersion}
		if err := e.Init(ctx, f, false); err != nil {
			b.Fatal(err)
		}
		cl := meta.NewClient(e, meta.ClientConfig{Heartbeat: time.Hour})
		if err := cl.Start(ctx); err != nil {
			b.Fatal(err)
		}
		top, _, err := cl.Mknod(ctx, meta.RootCred, meta.RootIno, "top", meta.TypeDirectory, 0o755, 0, "")
		if err != nil {
			b.Fatal(err)
		}
		const dirs, files = 20, 200
		var wg sync.WaitGroup
		for d := range dirs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				dir, _, err := cl.Mknod(ctx, meta.RootCred, top, fmt.Sprint("d", d), meta.TypeDirectory, 0o755, 0, "")
				if err != nil {
					b.Error(err)
					return
				}
				for f := range files {
					if _, _, err := cl.Mknod(ctx, meta.RootCred, dir, fmt.Sprint("f", f), meta.TypeFile, 0o644, 0, ""); err != nil {
						b.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		before := e.Stats()
		var removed atomic.Int64
		start := time.Now()
		if err := cl.RemoveTree(ctx, meta.RootCred, meta.RootIno, "top", top, meta.PurgeWorkers, &removed); err != nil {
			b.Fatal(err)
		}
		elapsed := time.Since(start)
		after := e.Stats()
		b.ReportMetric(float64(removed.Load())/elapsed.Seconds(), "entries/s")
		b.ReportMetric(float64(after.RoundTrips-before.RoundTrips), "rtt")
		b.ReportMetric(float64(after.Retries-before.Retries), "retries")
		cl.Close(ctx)
		e.Close()
	}
}
