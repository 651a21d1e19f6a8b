package meta

import (
	"math/bits"
	"sort"
	"sync"
	"time"
)

// Metrics records the latency of named operations in power-of-two
// microsecond buckets: cheap enough for every call, precise enough for
// percentiles within a factor of two. Safe for concurrent use.
type Metrics struct {
	mu  sync.Mutex
	ops map[string]*histogram
}

type histogram struct {
	count   uint64
	totalNs uint64
	maxNs   uint64
	buckets [HistogramBuckets]uint64 // bucket i counts latencies below 2^i microseconds
}

// NewMetrics returns an empty set of metrics.
func NewMetrics() *Metrics { return &Metrics{ops: make(map[string]*histogram)} }

// Observe records one operation named op that took d.
func (m *Metrics) Observe(op string, d time.Duration) {
	ns := uint64(d.Nanoseconds())
	us := ns / 1000
	b := bits.Len64(us)
	if b >= HistogramBuckets {
		b = HistogramBuckets - 1
	}
	m.mu.Lock()
	h := m.ops[op]
	if h == nil {
		h = &histogram{}
		m.ops[op] = h
	}
	h.count++
	h.totalNs += ns
	if ns > h.maxNs {
		h.maxNs = ns
	}
	h.buckets[b]++
	m.mu.Unlock()
}

// OpSummary is the latency of one kind of operation, in microseconds.
type OpSummary struct {
	Count  uint64  `json:"count"`
	MeanUs float64 `json:"mean_us"`
	P50Us  float64 `json:"p50_us"`
	P99Us  float64 `json:"p99_us"`
	MaxUs  float64 `json:"max_us"`
}

// Snapshot summarises every operation seen so far, keyed by name.
func (m *Metrics) Snapshot() map[string]OpSummary {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]OpSummary, len(m.ops))
	for name, h := range m.ops {
		out[name] = OpSummary{
			Count:  h.count,
			MeanUs: float64(h.totalNs) / float64(h.count) / 1000,
			P50Us:  h.quantile(0.5),
			P99Us:  h.quantile(0.99),
			MaxUs:  float64(h.maxNs) / 1000,
		}
	}
	return out
}

// quantile returns the upper bound of the bucket holding quantile q.
func (h *histogram) quantile(q float64) float64 {
	target := uint64(q*float64(h.count) + 0.5)
	if target == 0 {
		target = 1
	}
	var seen uint64
	for i, n := range h.buckets {
		seen += n
		if seen >= target {
			if i == 0 {
				return 1
			}
			return float64(uint64(1) << i)
		}
	}
	return float64(h.maxNs) / 1000
}

// Names lists the operations seen, sorted.
func (m *Metrics) Names() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	names := make([]string, 0, len(m.ops))
	for n := range m.ops {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
