package meta

// Histogram is the raw record of one kind of operation, for exporters that
// keep their own buckets (Prometheus): Buckets[i] counts the operations
// that took less than 2^i microseconds and at least 2^(i-1).
type Histogram struct {
	Count   uint64
	TotalNs uint64
	Buckets [HistogramBuckets]uint64
}

// HistogramBuckets is the number of power-of-two buckets of a Histogram.
const HistogramBuckets = 40

// Histograms copies the record of every operation seen so far, keyed by
// name.
func (m *Metrics) Histograms() map[string]Histogram {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]Histogram, len(m.ops))
	for name, h := range m.ops {
		out[name] = Histogram{Count: h.count, TotalNs: h.totalNs, Buckets: h.buckets}
	}
	return out
}
