package metrics

import (
	"context"
	"errors"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"cairn/meta"
	"cairn/meta/kv"
	"cairn/meta/metatest"
)

func wrappedMemEngine(t *testing.T) *Engine {
	t.Helper()
	e, err := NewEngine(kv.New(kv.NewMemStore(), ""), prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestEngineConformance: the wrapper passes the engines' conformance
// suite, over the in-memory engine.
func TestEngineConformance(t *testing.T) {
	metatest.Run(t, func(t *testing.T) meta.Engine { return wrappedMemEngine(t) })
}

func TestEngineCounts(t *testing.T) {
	ctx := context.Background()
	e := wrappedMemEngine(t)
	f := meta.Format{Name: "vol", UUID: "u", Storage: "mem", BlockSize: 1 << 20, Version: meta.FormatVersion}
	if err := e.Init(ctx, f, false); err != nil {
		t.Fatal(err)
	}
	if err := e.Init(ctx, f, false); !errors.Is(err, meta.ErrFormatted) {
		t.Fatalf("a second Init: %v", err)
	}
	for i := 0; i < 3; i++ {
		if _, _, err := e.Lookup(ctx, meta.RootIno, "missing"); !errors.Is(err, meta.ErrNotFound) {
			t.Fatalf("lookup of a missing name: %v", err)
		}
	}
	if _, err := e.GetAttr(ctx, meta.RootIno); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what      string
		got, want float64
	}{
		{"inits", histogramCount(t, e.m.latency, "init"), 2},
		{"lookups", histogramCount(t, e.m.latency, "lookup"), 3},
		{"getattrs", histogramCount(t, e.m.latency, "getattr"), 1},
		{"lookup ENOENT errors", testutil.ToFloat64(e.m.errors.WithLabelValues("lookup", "ENOENT")), 3},
		{"init errors", testutil.ToFloat64(e.m.errors.WithLabelValues("init", "other")), 1},
		{"error series", float64(testutil.CollectAndCount(e.m.errors)), 2}, // the two above only
	} {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", c.what, c.got, c.want)
		}
	}
}

// TestEngineWrappedTwice: a second engine wrapped on the same registry
// (the engine a mount moves to in an online migration) counts into the
// first one's series.
func TestEngineWrappedTwice(t *testing.T) {
	ctx := context.Background()
	reg := prometheus.NewRegistry()
	first, err := NewEngine(kv.New(kv.NewMemStore(), ""), reg)
	if err != nil {
		t.Fatal(err)
	}
	second, err := NewEngine(kv.New(kv.NewMemStore(), ""), reg)
	if err != nil {
		t.Fatalf("wrap a second engine on the same registry: %v", err)
	}
	for _, e := range []*Engine{first, second} {
		if _, _, err := e.Lookup(ctx, meta.RootIno, "missing"); err == nil {
			t.Fatal("lookup in an unformatted volume succeeded")
		}
	}
	if got := histogramCount(t, second.m.latency, "lookup"); got != 2 {
		t.Errorf("lookups counted: %v, want 2 (both engines')", got)
	}
}
