package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"cairn/accesslog"
)

// renderProfile writes the sums of an access log: by operation, then the
// top inodes and names by time.
func renderProfile(w io.Writer, source string, span time.Duration, s *accesslog.Summary, top int) {
	fmt.Fprintf(w, "cairn profile %s  %s, %d requests", source, span.Round(time.Millisecond), s.Requests)
	if s.Dropped > 0 {
		fmt.Fprintf(w, ", %d dropped (the reader fell behind)", s.Dropped)
	}
	if s.Skipped > 0 {
		fmt.Fprintf(w, ", %d lines not understood", s.Skipped)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w)
	renderTotals(w, "operation", s.Operations())
	fmt.Fprintln(w)
	renderTotals(w, "inode or dir/name", s.Targets(top))
}

func renderTotals(w io.Writer, what string, totals []accesslog.Total) {
	fmt.Fprintf(w, "%-32s %10s %8s %12s %12s\n", what, "count", "errors", "total ms", "average µs")
	for _, t := range totals {
		key := []rune(strings.Map(func(r rune) rune {
			if r < ' ' {
				return '?' // a name may hold a newline
			}
			return r
		}, t.Key))
		if len(key) > 32 {
			key = append([]rune("…"), key[len(key)-31:]...)
		}
		fmt.Fprintf(w, "%-32s %10d %8d %12.3f %12.1f\n", string(key), t.Count, t.Errors,
			float64(t.Time)/float64(time.Millisecond), float64(t.Average())/float64(time.Microsecond))
	}
}
