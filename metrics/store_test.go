package metrics

import (
	"context"
	"errors"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"cairn/object"
	"cairn/object/objecttest"
)

func fileStore(t *testing.T) object.Store {
	t.Helper()
	s, err := object.Open("file", t.TempDir(), object.Options{DeferSync: true})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestStoreConformance: the wrapper is an object store like the one it
// wraps.
func TestStoreConformance(t *testing.T) {
	stores := map[string]func(t *testing.T) object.Store{
		"file": fileStore,
		"mem":  func(t *testing.T) object.Store { return object.NewMem("test") },
	}
	for name, inner := range stores {
		t.Run(name, func(t *testing.T) {
			objecttest.Run(t, func(t *testing.T) object.Store {
				s, err := NewStore(inner(t), prometheus.NewRegistry())
				if err != nil {
					t.Fatal(err)
				}
				return s
			})
		})
	}
}

func TestStoreCounts(t *testing.T) {
	ctx := context.Background()
	s, err := newStore(fileStore(t), prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "a", make([]byte, 1000)); err != nil {
		t.Fatal(err)
	}
	if err := s.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "a", 10, 100); err != nil {
		t.Fatal(err)
	}
	if _, err := object.GetInto(ctx, s, "a", make([]byte, 0, 2000)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "missing", 0, -1); !errors.Is(err, object.ErrNotExist) {
		t.Fatalf("get of a missing object: %v", err)
	}
	if _, err := s.List(ctx, "", "", 10); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	requests := func(op string) float64 {
		return histogramCount(t, s.latency, op)
	}
	for _, c := range []struct {
		what      string
		got, want float64
	}{
		{"puts", requests("put"), 1},
		{"syncs", requests("sync"), 1},
		{"gets", requests("get"), 3},
		{"lists", requests("list"), 1},
		{"deletes", requests("delete"), 1},
		{"heads", requests("head"), 0},
		{"put errors", testutil.ToFloat64(s.errors.WithLabelValues("put")), 0},
		{"get errors", testutil.ToFloat64(s.errors.WithLabelValues("get")), 1},
		{"bytes put", testutil.ToFloat64(s.bytes.WithLabelValues("put")), 1000},
		{"bytes got", testutil.ToFloat64(s.bytes.WithLabelValues("get")), 1100},
	} {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", c.what, c.got, c.want)
		}
	}
}
