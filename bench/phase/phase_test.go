package phase

import (
	"strings"
	"testing"
)

// TestLines: notes and result lines, one per line, and nothing for the
// counting or for an empty result.
func TestLines(t *testing.T) {
	var out strings.Builder
	r := Lines(&out)
	r.Note("iteration 1 of 1")
	p := r.Start("File creation", 10, "items")
	p.Add(4)
	p.Add(6)
	p.End("  File creation 10 items")
	r.Start("quiet", 0, "items").End("")
	if got, want := out.String(), "iteration 1 of 1\n  File creation 10 items\n"; got != want {
		t.Errorf("Lines wrote %q, want %q", got, want)
	}
}
