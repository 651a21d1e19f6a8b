package fsbench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// Metric is one line of a mount's own figures over the run: an average
// latency or a rate, or, when the figure cannot be had, why (Note).
type Metric struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
	Note  string  `json:"note,omitempty"`
}

// metricNames are the mount figures every report lists, so that a local
// directory and a mount give the same rows.
var metricNames = []string{"FUSE operation", "Meta transaction", "Put object", "Get object", "Cache hit rate"}

// stats is the part of a cairn mount's ".stats" file (see package vfs) that
// the benchmark reads.
type stats struct {
	Ops map[string]struct {
		Count  float64 `json:"count"`
		MeanUs float64 `json:"mean_us"`
	} `json:"ops"`
	Blocks struct {
		Puts        float64 `json:"puts"`
		Gets        float64 `json:"gets"`
		PutNanos    float64 `json:"put_nanos"`
		GetNanos    float64 `json:"get_nanos"`
		MemHits     float64 `json:"mem_hits"`
		CacheHits   float64 `json:"cache_hits"`
		CacheMisses float64 `json:"cache_misses"`
	} `json:"blocks"`
}

// snapshot is a mount's counters at one moment; nil when there are none.
type snapshot *stats

// readMetrics reads the ".stats" file at the root of a FUSE mount; nil when
// m is not a cairn mount or the file cannot be read.
func readMetrics(m *Mount) snapshot {
	if m == nil || !strings.HasPrefix(m.FSType, "fuse") {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(m.Point, ".stats"))
	if err != nil {
		return nil
	}
	var s stats
	if json.Unmarshal(data, &s) != nil || s.Ops == nil {
		return nil
	}
	m.Cairn = true
	return &s
}

// metricRows turns the counters before and after the run into averages
// over the run.
func metricRows(m *Mount, before, after snapshot) []Metric {
	out := make([]Metric, len(metricNames))
	for i, n := range metricNames {
		out[i].Name = n
	}
	if before == nil || after == nil {
		note := "not a cairn mount"
		if m != nil && m.Cairn {
			note = "mount metrics: not available"
		}
		for i := range out {
			out[i].Note = note
		}
		return out
	}
	mean := func(prefix string) (float64, bool) {
		var n, total float64
		for name, a := range after.Ops {
			if !strings.HasPrefix(name, prefix) {
				continue
			}
			b := before.Ops[name]
			n += a.Count - b.Count
			total += a.Count*a.MeanUs - b.Count*b.MeanUs
		}
		if n <= 0 {
			return 0, false
		}
		return total / n / 1000, true
	}
	ratio := func(num, den float64) (float64, bool) {
		if den <= 0 {
			return 0, false
		}
		return num / den, true
	}
	a, b := after.Blocks, before.Blocks
	set := func(i int, v float64, ok bool, unit string) {
		if !ok {
			out[i].Note = "none during the run"
			return
		}
		out[i].Value, out[i].Unit = v, unit
	}
	v, ok := mean("fuse.")
	set(0, v, ok, "ms/op")
	v, ok = mean("meta.")
	set(1, v, ok, "ms/op")
	v, ok = ratio((a.PutNanos-b.PutNanos)/1e6, a.Puts-b.Puts)
	set(2, v, ok, "ms/op")
	v, ok = ratio((a.GetNanos-b.GetNanos)/1e6, a.Gets-b.Gets)
	set(3, v, ok, "ms/op")
	hits := a.MemHits - b.MemHits + a.CacheHits - b.CacheHits
	v, ok = ratio(hits*100, hits+a.CacheMisses-b.CacheMisses)
	set(4, v, ok, "%")
	return out
}
