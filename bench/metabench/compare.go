package metabench

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"cairn/bench"
	"cairn/bench/phase"
	"cairn/meta/engines"
)

// Target is one engine to compare: a label for the report's column and its
// URL.
type Target struct {
	Label string
	URL   string
}

// ParseTargets reads --meta arguments, each URL or LABEL=URL (a label has
// no ':' or '/'). An unlabelled engine is named by its scheme, with -2, -3…
// when several share one.
func ParseTargets(args []string) ([]Target, error) {
	var ts []Target
	seen := map[string]int{}
	for _, a := range args {
		t := Target{URL: a}
		if l, u, ok := strings.Cut(a, "="); ok && l != "" && !strings.ContainsAny(l, ":/") {
			t.Label, t.URL = l, u
		}
		scheme, _, ok := strings.Cut(t.URL, "://")
		if !ok || scheme == "" {
			return nil, fmt.Errorf("--meta %q: expected a metadata URL such as sqlite3:///tmp/vol.db, optionally LABEL=URL", engines.Redact(a))
		}
		if t.Label == "" {
			t.Label = scheme
			if k := seen[scheme]; k > 0 {
				t.Label = scheme + "-" + strconv.Itoa(k+1)
			}
		}
		seen[scheme]++
		for _, o := range ts {
			if o.Label == t.Label {
				return nil, fmt.Errorf("--meta: label %q given twice; name the engines LABEL=URL", t.Label)
			}
		}
		ts = append(ts, t)
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("no engine to measure: give at least one --meta URL")
	}
	return ts, nil
}

// EngineResult is one engine's measurements, by operation name.
type EngineResult struct {
	Label   string            `json:"label"`
	URL     string            `json:"url"`
	Engine  string            `json:"engine"`
	Version string            `json:"version,omitempty"`
	Durable string            `json:"durability,omitempty"`
	Note    string            `json:"note,omitempty"`
	Samples map[string]Sample `json:"-"`
}

// Report is a comparison of engines, operation by operation.
type Report struct {
	Env       bench.Env
	Benchtime Benchtime
	// Count is how many times every operation was measured; the report
	// holds the median.
	Count   int
	Ops     []Op
	Engines []EngineResult
}

// Compare runs every operation against each target in turn, count times
// (all operations once, then again, so that a burst of load elsewhere on
// the machine spoils one run of many operations rather than every run of
// one), and keeps each operation's median. Each run of every operation on
// an engine is a phase of progress, with a line per measurement. It opens
// every engine before measuring any, so that a wrong URL fails at once
// and not after an hour.
func Compare(ctx context.Context, targets []Target, bt Benchtime, count int, progress phase.Reporter) (rep *Report, err error) {
	count = max(count, 1)
	vols := make([]*bench.Volume, 0, len(targets))
	defer func() {
		for i, v := range vols {
			if cerr := v.Close(); err == nil && cerr != nil {
				err = fmt.Errorf("engine %s: close: %w", targets[i].Label, cerr)
			}
		}
	}()
	for _, t := range targets {
		v, err := bench.Open(ctx, t.URL)
		if err != nil {
			return nil, fmt.Errorf("engine %s: %w", t.Label, err)
		}
		vols = append(vols, v)
	}
	rep = &Report{Env: bench.Machine(), Benchtime: bt, Count: count, Ops: Ops()}
	for i, t := range targets {
		progress.Note(fmt.Sprintf("[%d/%d] %s (%s)", i+1, len(targets), t.Label, vols[i].URL))
		res, err := measureEngine(ctx, t, vols[i], rep.Ops, bt, count, progress)
		if err != nil {
			return nil, fmt.Errorf("engine %s: %w", t.Label, err)
		}
		rep.Engines = append(rep.Engines, res)
	}
	rep.Env.LoadEnd = bench.LoadAverage()
	return rep, nil
}

func measureEngine(ctx context.Context, t Target, v *bench.Volume, ops []Op, bt Benchtime, count int, progress phase.Reporter) (EngineResult, error) {
	res := EngineResult{Label: t.Label, URL: v.URL, Engine: v.Engine.Name(), Samples: map[string]Sample{}}
	res.Version = bench.EngineVersion(v.Engine.Name())
	res.Durable = bench.Durability(v.Engine.Name(), t.URL)
	if v.Formatted {
		res.Note = "formatted a throw-away volume here; it is left in place"
	} else {
		res.Note = "measured inside a directory of its own on an existing volume, removed afterwards"
	}
	r, err := NewRunner(ctx, v)
	if err != nil {
		return res, err
	}
	runs := map[string][]Sample{}
	for c := 1; c <= count; c++ {
		name := t.Label
		if count > 1 {
			progress.Note(fmt.Sprintf("  run %d of %d", c, count))
			name = fmt.Sprintf("%s, run %d of %d", t.Label, c, count)
		}
		done := progress.Start(name, int64(len(ops)), "operations")
		for _, op := range ops {
			start := time.Now()
			s, err := r.Measure(ctx, op, bt)
			if err != nil {
				return res, err
			}
			runs[op.Name] = append(runs[op.Name], s)
			progress.Note(fmt.Sprintf("  %-13s %12s µs/op %8.2f rtt/op  n=%-8d (%.1fs)",
				op.Name, Micros(s.NsPerOp()), s.RTTPerOp(), s.N, time.Since(start).Seconds()))
			done.Add(1)
		}
		done.End("")
	}
	for name, ss := range runs {
		res.Samples[name] = Median(ss)
	}
	if err := r.Close(ctx); err != nil {
		return res, fmt.Errorf("remove the benchmark's directory: %w", err)
	}
	return res, nil
}

// Median returns the sample of median latency (the lower middle one of an
// even number).
func Median(ss []Sample) Sample {
	sorted := slices.Clone(ss)
	slices.SortFunc(sorted, func(a, b Sample) int { return cmp.Compare(a.NsPerOp(), b.NsPerOp()) })
	return sorted[(len(sorted)-1)/2]
}

// Micros formats a latency in nanoseconds as microseconds, to the
// precision a shared machine's noise allows.
func Micros(ns float64) string {
	us := ns / 1000
	switch {
	case us >= 100:
		return strconv.FormatFloat(us, 'f', 0, 64)
	case us >= 10:
		return strconv.FormatFloat(us, 'f', 1, 64)
	default:
		return strconv.FormatFloat(us, 'f', 2, 64)
	}
}
