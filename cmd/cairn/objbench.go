package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"sort"
	"sync"
	"time"

	"cairn/bench/phase"
	"cairn/object"

	"github.com/spf13/cobra"
)

func objbenchCommand() *cobra.Command {
	c := &cobra.Command{
		Use:     "objbench --storage file|s3|mem --bucket DIR|URL",
		Short:   "measure put/get/list/delete of an object store before formatting on it",
		Example: "  cairn objbench --storage file --bucket /data/bench\n  ACCESS_KEY=... SECRET_KEY=... cairn objbench --storage s3 --bucket https://s3.example.com/bench --threads 16",
		Args:    exactArgs(0),
	}
	fs := c.Flags()
	storage := fs.String("storage", "file", "object store kind: file, mem or s3")
	bucket := fs.String("bucket", "", "directory (file) or http(s)://host:port/bucket (s3)")
	var credentials storeFlags
	credentials.register(fs)
	size := byteSize(4 << 20)
	small := byteSize(128 << 10)
	fs.Var(&size, "block-size", "size of the big objects (e.g. 4M)")
	fs.Var(&small, "small-object-size", "size of the small objects (e.g. 128K)")
	oldName(fs, "small-size", "small-object-size")
	count := fs.Int("objects", 64, "objects of each size")
	oldName(fs, "count", "objects")
	threads := fs.IntP("threads", "p", 4, "concurrent requests")
	c.RunE = func(_ *cobra.Command, _ []string) error {
		if *bucket == "" && *storage != "mem" {
			return fmt.Errorf("no --bucket given (a directory, or http(s)://host:port/bucket for s3)")
		}
		if *count <= 0 || *threads <= 0 {
			return fmt.Errorf("--objects and --threads must be positive")
		}
		store, err := object.Open(*storage, *bucket, credentials.options())
		if err != nil {
			return err
		}
		ctx := context.Background()
		if err := store.Create(ctx); err != nil {
			return err
		}
		prefix := fmt.Sprintf("cairn-objbench-%d/", time.Now().UnixNano())
		progress, done := benchProgress()
		defer done()
		fmt.Printf("object store %s, %d threads\n", store, *threads)
		fmt.Printf("%-22s %12s %12s %10s %10s\n", "operation", "objects/s", "MiB/s", "p50 ms", "p99 ms")
		defer objCleanup(ctx, store, prefix)
		for _, sz := range []int{int(size), int(small)} {
			data := make([]byte, sz)
			rand.Read(data)
			key := func(i int) string { return fmt.Sprintf("%s%d/%06d", prefix, sz, i) }
			ops := []struct {
				name string
				f    func(i int) error
			}{
				{"put", func(i int) error { return store.Put(ctx, key(i), data) }},
				{"get", func(i int) error { _, err := store.Get(ctx, key(i), 0, -1); return err }},
				{"head", func(i int) error { _, err := store.Head(ctx, key(i)); return err }},
				{"delete", func(i int) error { return store.Delete(ctx, key(i)) }},
			}
			for _, op := range ops {
				p := progress.Start(op.name+" "+objSize(sz), int64(*count), "objects")
				r, err := objMeasure(p, *count, *threads, op.f)
				p.End("")
				if err != nil {
					return fmt.Errorf("%s of %s objects: %w", op.name, objSize(sz), err)
				}
				mib := ""
				if op.name == "put" || op.name == "get" {
					mib = fmt.Sprintf("%.1f", float64(sz)*r.perSec/(1<<20))
				}
				fmt.Printf("%-22s %12.1f %12s %10.2f %10.2f\n", op.name+" "+objSize(sz), r.perSec, mib, objMillis(r.p50), objMillis(r.p99))
			}
		}
		// List: put a page worth of empty objects and list them.
		puts := progress.Start("put objects to list", 1000, "objects")
		for i := 0; i < 1000; i += 100 {
			if _, err := objMeasure(puts, 100, *threads, func(j int) error {
				return store.Put(ctx, fmt.Sprintf("%slist/%06d", prefix, i+j), nil)
			}); err != nil {
				return fmt.Errorf("put objects to list: %w", err)
			}
		}
		puts.End("")
		lists := progress.Start("list 1000 keys", 10, "lists")
		r, err := objMeasure(lists, 10, 1, func(int) error {
			_, err := store.List(ctx, prefix+"list/", "", 1000)
			return err
		})
		lists.End("")
		if err != nil {
			return fmt.Errorf("list: %w", err)
		}
		fmt.Printf("%-22s %12.1f %12s %10.2f %10.2f\n", "list 1000 keys", r.perSec*1000, "", objMillis(r.p50), objMillis(r.p99))
		return nil
	}
	return c
}

type objResult struct {
	perSec   float64
	p50, p99 time.Duration
}

// objMeasure runs f(0..n-1) on threads goroutines, counting each call in
// progress, and reports the rate and latency percentiles.
func objMeasure(progress phase.Phase, n, threads int, f func(i int) error) (objResult, error) {
	lat := make([]time.Duration, n)
	var firstErr error
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan int, n)
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	start := time.Now()
	for t := 0; t < threads; t++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				s := time.Now()
				if err := f(i); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
				lat[i] = time.Since(s)
				progress.Add(1)
			}
		}()
	}
	wg.Wait()
	total := time.Since(start)
	if firstErr != nil {
		return objResult{}, firstErr
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	return objResult{perSec: float64(n) / total.Seconds(), p50: lat[n/2], p99: lat[n*99/100]}, nil
}

func objCleanup(ctx context.Context, store object.Store, prefix string) {
	for {
		l, err := store.List(ctx, prefix, "", 1000)
		if err != nil || len(l) == 0 {
			if err != nil {
				warn(os.Stderr, "cairn objbench: could not remove the test objects under %s: %v", prefix, err)
			}
			return
		}
		for _, in := range l {
			store.Delete(ctx, in.Key)
		}
	}
}

func objMillis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func objSize(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}
