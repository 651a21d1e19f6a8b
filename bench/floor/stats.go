package floor

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"cairn/bench/fsbench"
)

// stats is the part of a cairn mount's .stats file (see package vfs) the
// floor benchmark reads.
type stats struct {
	MetaURL string `json:"meta_url"`
	Control string `json:"control"` // the mount's control channel, when it has one
	Ops     map[string]struct {
		Count float64 `json:"count"`
	} `json:"ops"`
	Engine struct {
		RoundTrips float64 `json:"RoundTrips"`
	} `json:"engine"`
}

// readStats reads the .stats file of mount m, which must be a cairn mount
// that reports its metadata URL.
func readStats(m *fsbench.Mount) (*stats, error) {
	if m == nil || !strings.HasPrefix(m.FSType, "fuse") {
		on := "a file system of unknown type"
		if m != nil {
			on = m.FSType + " mounted at " + m.Point
		}
		return nil, fmt.Errorf("not on a cairn mount but on %s: the floor benchmark measures a mounted cairn volume", on)
	}
	data, err := os.ReadFile(filepath.Join(m.Point, ".stats"))
	if err != nil {
		return nil, fmt.Errorf("not on a cairn mount (%s mounted at %s has no readable .stats: %v)", m.FSType, m.Point, err)
	}
	var s stats
	if err := json.Unmarshal(data, &s); err != nil || s.Ops == nil {
		return nil, fmt.Errorf("not on a cairn mount (%s mounted at %s has a .stats file that is not cairn's)", m.FSType, m.Point)
	}
	if s.MetaURL == "" {
		return nil, fmt.Errorf("the cairn mount at %s does not report its metadata URL (mounted by an older cairn): remount it with this release", m.Point)
	}
	return &s, nil
}

// delta is what the mount counted between two readings of .stats.
type delta struct {
	roundTrips float64
	requests   map[string]float64 // FUSE requests by kind ("mkdir")
}

func diff(before, after *stats) delta {
	d := delta{roundTrips: after.Engine.RoundTrips - before.Engine.RoundTrips, requests: map[string]float64{}}
	for name, a := range after.Ops {
		kind, ok := strings.CutPrefix(name, "fuse.")
		if !ok {
			continue
		}
		if n := a.Count - before.Ops[name].Count; n != 0 {
			d.requests[kind] = n
		}
	}
	return d
}

// minus takes away what reading .stats itself costs (cost), never going
// below zero.
func (d delta) minus(cost delta) delta {
	out := delta{roundTrips: max(0, d.roundTrips-cost.roundTrips), requests: map[string]float64{}}
	for k, n := range d.requests {
		if n -= cost.requests[k]; n > 0 {
			out.requests[k] = n
		}
	}
	return out
}
