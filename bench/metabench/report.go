package metabench

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Record is one line of 'cairn bench engines --json'.
type Record struct {
	Engine   string  `json:"engine"`
	Op       string  `json:"op"`
	NsPerOp  float64 `json:"ns_per_op"`
	RTTPerOp float64 `json:"rtt_per_op"`
}

// Records lists the report's measurements, engine by engine, in the order
// of the operations.
func (r *Report) Records() []Record {
	var out []Record
	for _, e := range r.Engines {
		for _, op := range r.Ops {
			s, ok := e.Samples[op.Name]
			if !ok {
				continue
			}
			out = append(out, Record{Engine: e.Label, Op: op.Name, NsPerOp: round(s.NsPerOp(), 1), RTTPerOp: round(s.RTTPerOp(), 3)})
		}
	}
	return out
}

func round(x float64, digits int) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', digits, 64), 64)
	return v
}

// WriteJSON writes one JSON record per line.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	for _, rec := range r.Records() {
		if err := enc.Encode(rec); err != nil {
			return err
		}
	}
	return nil
}

// WriteMarkdown writes the report: environment, the latency table in the
// seed's form (µs/op, multiple of the first engine in parentheses), round
// trips per operation, and a link to each group's chart, charts[group]
// being the chart's path relative to the report (none when empty).
func (r *Report) WriteMarkdown(w io.Writer, charts map[string]string) error {
	var b strings.Builder
	env := r.Env
	b.WriteString("# cairn metadata engines benchmark\n\n")
	build := env.Go
	if env.Cairn != "" {
		build = env.Cairn + ", " + env.Go
	}
	fmt.Fprintf(&b, "Measured %s on %s: %s, %d CPUs, %.1f GiB, %s; %s.\n\n",
		env.Date.Format("2006-01-02 15:04 UTC"), env.Host, orUnknown(env.CPU), env.CPUs, env.MemoryGiB, env.Kernel, build)
	if env.LoadStart != "" {
		fmt.Fprintf(&b, "Load average (1, 5, 15 min) at the start %s, at the end %s: the higher above the CPU count, the more other work shared the machine and the noisier the figures.\n\n", env.LoadStart, orUnknown(env.LoadEnd))
	}
	if env.CPUIdle != "" {
		fmt.Fprintf(&b, "Idle CPUs: %s.\n\n", env.CPUIdle)
	}
	runs := "once"
	if r.Count > 1 {
		runs = fmt.Sprintf("%d times, all operations in turn, on the same volume (later runs find the files of earlier ones), and the median is shown", r.Count)
	}
	fmt.Fprintf(&b, "Each operation ran for %s (rounds sized as go test sizes b.N; the last round counts), measured %s. Caches: %s.\n\n", r.Benchtime, runs, Caches)
	b.WriteString("| engine | URL | software | durability | note |\n|---|---|---|---|---|\n")
	for _, e := range r.Engines {
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s | %s |\n", e.Label, e.URL, orUnknown(e.Version), orUnknown(e.Durable), e.Note)
	}
	if len(r.Engines) == 0 {
		_, err := io.WriteString(w, b.String())
		return err
	}
	first := r.Engines[0].Label
	fmt.Fprintf(&b, "\n## Latency\n\nTime per operation in µs, smaller is better; in parentheses the multiple of %s's time.\n\n", first)
	r.table(&b, func(e EngineResult, op string, base Sample) string {
		s, ok := e.Samples[op]
		if !ok {
			return "—"
		}
		cell := Micros(s.NsPerOp())
		if e.Label != first {
			if base.N > 0 && base.NsPerOp() > 0 {
				cell += " (" + multiple(s.NsPerOp()/base.NsPerOp()) + ")"
			} else {
				cell += " (—)"
			}
		}
		return cell
	})
	b.WriteString("\n## Round trips\n\nRequests sent to the database per operation (Engine.Stats().RoundTrips), which noise does not move.\n\n")
	r.table(&b, func(e EngineResult, op string, _ Sample) string {
		s, ok := e.Samples[op]
		if !ok {
			return "—"
		}
		return strconv.FormatFloat(s.RTTPerOp(), 'f', 2, 64)
	})
	if len(charts) > 0 {
		b.WriteString("\n## Charts\n\n")
		for _, g := range Groups {
			if p, ok := charts[g]; ok {
				fmt.Fprintf(&b, "![%s](%s)\n", g, p)
			}
		}
	}
	b.WriteString("\n## Operations\n\n| op | one run is |\n|---|---|\n")
	for _, op := range r.Ops {
		fmt.Fprintf(&b, "| %s | %s |\n", op.Name, op.Does)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// table writes one row per operation and one column per engine.
func (r *Report) table(b *strings.Builder, cell func(e EngineResult, op string, base Sample) string) {
	b.WriteString("| |")
	for _, e := range r.Engines {
		b.WriteString(" " + e.Label + " |")
	}
	b.WriteString("\n|---|")
	for range r.Engines {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, op := range r.Ops {
		base := r.Engines[0].Samples[op.Name]
		b.WriteString("| " + op.Name + " |")
		for _, e := range r.Engines {
			b.WriteString(" " + cell(e, op.Name, base) + " |")
		}
		b.WriteString("\n")
	}
}

// multiple formats a ratio as the seed does, to one decimal, but keeps two
// significant digits below 1 so that a much faster engine does not read 0.0.
func multiple(x float64) string {
	if x >= 0.95 || x == 0 {
		return strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strconv.FormatFloat(x, 'g', 2, 64)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
