package metabench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cairn/bench"
	"cairn/meta/engines"
)

// benchURL is the engine the Go benchmarks measure: CAIRN_BENCH_META, or a
// temporary SQLite volume.
func benchURL(tb testing.TB) string {
	if u := os.Getenv("CAIRN_BENCH_META"); u != "" {
		return u
	}
	return "sqlite3://" + filepath.Join(tb.TempDir(), "bench.db")
}

// openVolume opens rawURL, skipping while its engine is not built yet.
func openVolume(tb testing.TB, rawURL string) *bench.Volume {
	tb.Helper()
	scheme, _, _ := strings.Cut(rawURL, "://")
	if !slices.Contains(engines.Schemes(), scheme) {
		tb.Skipf("issue 2: engine %q is not in meta/engines yet", scheme)
	}
	v, err := bench.Open(context.Background(), rawURL)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := v.Close(); err != nil {
			tb.Errorf("close %s: %v", rawURL, err)
		}
	})
	return v
}

// BenchmarkMeta measures every operation of the seed's table against the
// engine in CAIRN_BENCH_META (default: a temporary SQLite volume):
//
//	go test -run '^$' -bench Meta ./bench/metabench
//	CAIRN_BENCH_META=redis://127.0.0.1:6379/3 go test -run '^$' -bench Meta/mkdir ./bench/metabench
func BenchmarkMeta(b *testing.B) {
	ctx := context.Background()
	url := benchURL(b)
	v := openVolume(b, url)
	r, err := NewRunner(ctx, v)
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := r.Close(ctx); err != nil {
			b.Error(err)
		}
	}()
	// Configuration lines in go test's "key: value" form, which benchstat
	// keeps with the results.
	fmt.Printf("engine: %s %s\ncaches: %s\nload: %s\n", v.Engine.Name(), v.URL, Caches, bench.LoadAverage())
	for _, op := range Ops() {
		b.Run(op.Name, func(b *testing.B) {
			b.StopTimer()
			run, err := r.Prepare(ctx, op, b.N)
			if err != nil {
				b.Fatal(err)
			}
			before := v.Engine.Stats().RoundTrips
			b.ResetTimer()
			b.StartTimer()
			for i := 0; i < b.N; i++ {
				if err := run(i); err != nil {
					b.Fatalf("%s, run %d: %v", op.Name, i, err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(v.Engine.Stats().RoundTrips-before)/float64(b.N), "rtt/op")
		})
	}
}

// TestOpsShort runs every operation a few times on the embedded engines, so
// that the benchmarks cannot rot. It checks that each run does what it
// claims, never how fast.
func TestOpsShort(t *testing.T) {
	urls := map[string]string{
		"mem":     "mem://",
		"sqlite3": "sqlite3://" + filepath.Join(t.TempDir(), "ops.db"),
	}
	if u := os.Getenv("CAIRN_BENCH_META"); u != "" {
		urls["env"] = u
	}
	for name, url := range urls {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			v := openVolume(t, url)
			r, err := NewRunner(ctx, v)
			if err != nil {
				t.Fatal(err)
			}
			for _, op := range Ops() {
				s, err := r.Round(ctx, op, 3)
				if err != nil {
					t.Fatal(err)
				}
				if s.N != 3 || s.Elapsed <= 0 {
					t.Errorf("%s: sample %+v, want 3 timed runs", op.Name, s)
				}
				// Every operation but newchunk (whose ids are reserved
				// in batches) asks the database something each time;
				// an engine that is a server must count it.
				if v.Engine.Name() != "mem" && op.Name != "newchunk" && s.RoundTrips < 3 {
					t.Errorf("%s on %s: %d round trips counted for 3 runs, want at least 3", op.Name, v.Engine.Name(), s.RoundTrips)
				}
			}
			if name == "mem" {
				// More subdirectories than a directory's link count
				// allows (65000 on some engines): what a fast engine
				// reaches in a second.
				for _, op := range []Op{Ops()[0], Ops()[2]} {
					if _, err := r.Round(ctx, op, 70000); err != nil {
						t.Errorf("70000 runs: %v", err)
					}
				}
			}
			if err := r.Close(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestBenchtime(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Benchtime
		bad  bool
	}{
		{in: "1s", want: Benchtime{D: 1e9}},
		{in: "250ms", want: Benchtime{D: 250e6}},
		{in: "100x", want: Benchtime{N: 100}},
		{in: "0x", bad: true},
		{in: "x", bad: true},
		{in: "-1s", bad: true},
		{in: "fast", bad: true},
	} {
		got, err := ParseBenchtime(c.in)
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("ParseBenchtime(%q) = %v, %v; want %v, error %v", c.in, got, err, c.want, c.bad)
		}
	}
}

func TestNextN(t *testing.T) {
	// 1 run took 1ms: a 1s target predicts 1000, plus 20%, capped at 100x.
	if got := nextN(1, 1e6, 1e9); got != 100 {
		t.Errorf("nextN(1, 1ms, 1s) = %d, want 100 (capped)", got)
	}
	if got := nextN(100, 100e6, 1e9); got != 1200 {
		t.Errorf("nextN(100, 100ms, 1s) = %d, want 1200", got)
	}
	if got := nextN(10, 2e9, 1e9); got != 11 {
		t.Errorf("nextN(10, 2s, 1s) = %d, want 11 (always grows)", got)
	}
}
