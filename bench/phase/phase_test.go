package phase

import (
	"strings"
	"sync"
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

// TestCounterAddsFromManyTasks: units added at once by many goroutines
// are all counted when the phase ends.
func TestCounterAddsFromManyTasks(t *testing.T) {
	var c Counter
	p := c.Start("ops", 4000, "operations")
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				p.Add(1)
			}
		}()
	}
	wg.Wait()
	p.End("")
	if c.Done["ops"] != 4000 {
		t.Errorf("counted %d units, want 4000", c.Done["ops"])
	}
}
