package metrics

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"cairn/meta"
)

// histogramCount is the number of observations of op in h.
func histogramCount(t *testing.T, h *prometheus.HistogramVec, op string) float64 {
	t.Helper()
	var m dto.Metric
	if err := h.WithLabelValues(op).(prometheus.Histogram).Write(&m); err != nil {
		t.Fatal(err)
	}
	return float64(m.GetHistogram().GetSampleCount())
}

func TestCumulativeBuckets(t *testing.T) {
	var h meta.Histogram
	h.Buckets[0] = 1  // under 1 µs
	h.Buckets[4] = 2  // 8-16 µs
	h.Buckets[5] = 4  // 16-32 µs
	h.Buckets[10] = 8 // 512 µs - 1 ms
	h.Buckets[39] = 16
	got := cumulativeBuckets(h)
	cases := []struct {
		bound float64
		want  uint64
	}{
		{16e-6, 3},
		{64e-6, 7},
		{1024e-6, 15},
		{float64(1<<24) / 1e6, 15},
	}
	if len(got) != len(latencyBuckets) {
		t.Errorf("%d bounds, want the %d of latencyBuckets", len(got), len(latencyBuckets))
	}
	for _, c := range cases {
		if got[c.bound] != c.want {
			t.Errorf("count at %gs: %d, want %d (all: %v)", c.bound, got[c.bound], c.want, got)
		}
	}
}
