package fsbench

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteText prints the result as a plain table: ITEM, VALUE, COST.
func (r *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	c := r.Config
	fmt.Fprintf(&b, "cairn bench %s: %d thread(s), big file %s, small files %d × %s per thread, I/O size %s\n",
		c.Path, c.Threads, size(c.BigFileSize), c.SmallFiles, size(c.SmallFileSize), size(int64(c.BlockSize)))
	if r.Mount != nil {
		fmt.Fprintf(&b, "file system: %s mounted at %s (%s)\n", r.Mount.FSType, r.Mount.Point, r.Mount.Source)
	}
	fmt.Fprintf(&b, "page cache: %s; every file written is fsync'd before close\n", r.Cache)
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "%-18s %-22s %s\n", "ITEM", "VALUE", "COST")
	for _, p := range r.Phases {
		fmt.Fprintf(&b, "%-18s %-22s %s\n", p.Name, fmt.Sprintf("%.2f %s", p.Value, p.Unit), fmt.Sprintf("%.3f %s", p.Cost, p.CostPer))
	}
	for _, m := range r.Metrics {
		v := m.Note
		if v == "" {
			v = fmt.Sprintf("%.2f %s", m.Value, m.Unit)
		}
		fmt.Fprintf(&b, "%-18s %-22s %s\n", m.Name, v, "-")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON prints the result as one JSON object.
func (r *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
