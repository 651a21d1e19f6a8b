// Package floor measures metadata operations through a cairn mount against
// the floor of the volume's own database: one durable write (for a
// mutation) and one read (for a look-up), probed on the same server in the
// same run (meta.FloorProber). For every kind of operation it reports the
// time per operation, its ratio to the floor, the engine round trips the
// mount spent on it and the FUSE requests the kernel sent for it (both from
// the mount's .stats), once with one task and once with several.
//
// floor drives the mount with ordinary system calls; what it knows of
// cairn is the .stats file (package vfs), which also names the volume's
// metadata URL, and how to open an engine from that URL.
package floor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"cairn/bench"
	"cairn/bench/fsbench"
	"cairn/bench/phase"
)

// Config is what to run.
type Config struct {
	Path string `json:"path"`
	// Tasks are the passes, each with that many tasks at once, every task
	// in a directory of its own (e.g. 1 and 4).
	Tasks []int `json:"tasks"`
	// Ops is how many operations of each kind every task makes, and how
	// many probes of each kind every task sends to the database.
	Ops int `json:"ops"`
}

// Floor is the time of one probe of the database, in microseconds.
type Floor struct {
	WriteUs float64 `json:"write_us"`
	ReadUs  float64 `json:"read_us"`
	// ListUs is the engine's own listing, with attributes, of the
	// directory the readdir operation lists (ListEntries entries), in the
	// pages a mount asks for; 0 when the mount could not say (an older
	// release).
	ListUs      float64 `json:"list_us,omitempty"`
	ListEntries int     `json:"list_entries,omitempty"`
}

// The floors a row is compared with.
const (
	floorWrite   = "write"   // one durable write
	floorRead    = "read"    // one read of one key
	floorListing = "listing" // the engine's own listing of the same directory
)

// Row is one kind of operation in one pass.
type Row struct {
	Op string `json:"op"`
	// Mutation: compared with the durable write; otherwise with the read,
	// or for readdir with the listing.
	Mutation bool    `json:"mutation"`
	Floor    string  `json:"floor"` // which floor Ratio is over: write, read or listing
	Us       float64 `json:"us"`    // mean time of one operation
	// FloorUs is that floor, probed right after this operation's phase
	// with as many tasks: the disk and the server as the operations found
	// them, not as they were minutes before.
	FloorUs float64 `json:"floor_us"`
	Ratio   float64 `json:"ratio"` // Us over FloorUs
	// RoundTrips is the engine requests per operation, from .stats.
	RoundTrips float64 `json:"round_trips"`
	// Requests is the FUSE requests per operation, by kind, from .stats.
	Requests map[string]float64 `json:"fuse_requests"`
}

// Pass is every kind of operation with a number of tasks at once.
type Pass struct {
	Tasks int   `json:"tasks"`
	Floor Floor `json:"floor"`
	Rows  []Row `json:"rows"`
}

// Result is a whole run.
type Result struct {
	Config Config         `json:"config"`
	Mount  *fsbench.Mount `json:"mount"`
	Engine string         `json:"meta_url"`
	Passes []Pass         `json:"passes"`
	Notes  []string       `json:"notes,omitempty"`
}

// Run measures cfg.Path, which must be on a cairn mount, in a fresh
// directory it removes at the end. progress learns of each operation's
// phase as it runs and gets a line per step.
func Run(ctx context.Context, cfg Config, progress phase.Reporter) (*Result, error) {
	if cfg.Ops < 1 || len(cfg.Tasks) == 0 {
		return nil, fmt.Errorf("the floor benchmark needs at least 1 operation and 1 pass")
	}
	for _, n := range cfg.Tasks {
		if n < 1 {
			return nil, fmt.Errorf("tasks must be at least 1, got %d", n)
		}
	}
	abs, err := filepath.Abs(cfg.Path)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("benchmark directory: %w", err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", cfg.Path)
	}
	m := fsbench.FindMount(abs)
	s, err := readStats(m)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.Path, err)
	}
	res := &Result{Config: cfg, Mount: m, Engine: s.MetaURL}
	prober, err := openProberFor(s)
	if err != nil {
		return nil, err
	}
	defer prober.close()
	progress.Note(fmt.Sprintf("floor of %s, operations through %s", s.MetaURL, m.Point))

	dir, err := os.MkdirTemp(abs, "cairn-floor-")
	if err != nil {
		return nil, fmt.Errorf("make the benchmark's directory: %w", err)
	}
	defer os.RemoveAll(dir)
	r := &runner{cfg: cfg, mount: m, progress: progress, prober: prober}
	if err := r.calibrate(); err != nil {
		return nil, err
	}
	for i, tasks := range cfg.Tasks {
		p, err := r.pass(ctx, filepath.Join(dir, fmt.Sprintf("pass%d", i)), tasks)
		if err != nil {
			return nil, err
		}
		res.Passes = append(res.Passes, p)
	}
	res.Notes = append(res.Notes,
		"µs: mean time of one operation as each task sees it; floor: one durable write (mutations) or one read (look-ups) of the same database, probed with as many tasks at once right after the operation's phase, or for readdir the engine's own listing of the same directory with attributes (listing); ×floor: µs over floor",
		"rtt: engine round trips per operation and fuse: FUSE requests per operation, from the mount's .stats (the mount's background work, such as heartbeats, is counted too)")
	if idle, halts := bench.IdleCPUs("/sys"); halts {
		res.Notes = append(res.Notes, "this machine's idle CPUs halt without polling first ("+idle+"): waking one costs tens of µs, and an operation through the mount, which waits on the database with the caller and the mount asleep, pays several; the floor's probes, sent back to back, pay few (README, \"…and idle CPUs that halt\")")
	}
	return res, nil
}
