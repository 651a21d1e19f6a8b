package floor

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// WriteText prints one table: for every operation, each pass's time, the
// floor probed right after it, the ratio of the two, round trips and FUSE
// requests per operation.
func (r *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "cairn bench %s --floor: %d operations of each kind per task\n", r.Config.Path, r.Config.Ops)
	fmt.Fprintf(&b, "volume: %s, mounted at %s (%s)\n", r.Engine, r.Mount.Point, r.Mount.Source)
	for _, p := range r.Passes {
		fmt.Fprintf(&b, "floor, %d task(s): durable write %.0f µs, read %.0f µs", p.Tasks, p.Floor.WriteUs, p.Floor.ReadUs)
		if p.Floor.ListUs > 0 {
			fmt.Fprintf(&b, ", listing of %d entries %.0f µs", p.Floor.ListEntries, p.Floor.ListUs)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "%-15s %-7s", "OPERATION", "FLOOR")
	for _, p := range r.Passes {
		fmt.Fprintf(&b, " %10s %6s %7s %6s", fmt.Sprintf("µs %dT", p.Tasks), "floor", "×floor", "rtt")
	}
	b.WriteString("  fuse requests per op (1st pass)\n")
	for i := range ops {
		if len(r.Passes) == 0 || i >= len(r.Passes[0].Rows) {
			break
		}
		first := r.Passes[0].Rows[i]
		fmt.Fprintf(&b, "%-15s %-7s", first.Op, first.Floor)
		for _, p := range r.Passes {
			row := p.Rows[i]
			fmt.Fprintf(&b, " %10.0f %6.0f %7.2f %6.2f", row.Us, row.FloorUs, row.Ratio, row.RoundTrips)
		}
		fmt.Fprintf(&b, "  %s\n", requests(first.Requests))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// requests lists FUSE requests per operation, most frequent first, leaving
// out the ones rarer than once in twenty operations.
func requests(m map[string]float64) string {
	type kv struct {
		k string
		v float64
	}
	var l []kv
	for k, v := range m {
		if v >= 0.05 {
			l = append(l, kv{k, v})
		}
	}
	sort.Slice(l, func(i, j int) bool { return l[i].v > l[j].v || l[i].v == l[j].v && l[i].k < l[j].k })
	var parts []string
	for _, e := range l {
		parts = append(parts, fmt.Sprintf("%s %.2g", e.k, e.v))
	}
	if len(parts) == 0 {
		return "none (answered by the kernel's caches)"
	}
	return strings.Join(parts, ", ")
}

// WriteJSON prints the result as one JSON object.
func (r *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
