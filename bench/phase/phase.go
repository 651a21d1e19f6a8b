// Package phase is how a benchmark tells whoever runs it what it is
// doing. Each measured step is a phase: it starts with the number of units
// it will do (when that is known), counts them as they are done, and ends
// with one line of its result. A command draws a progress bar from this
// on a terminal; Lines writes only the lines, as a log would.
//
// The package knows nothing of terminals or of any benchmark.
package phase

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// Reporter receives the phases of a benchmark, one at a time: a phase
// ends before the next one starts. Note and Start are called from one
// goroutine, never at the same time as a phase's Add.
type Reporter interface {
	// Start begins a phase called name that will do total units (0: not
	// known) of unit ("files", "bytes", "items"; "bytes" may be shown as
	// KiB, MiB, ...).
	Start(name string, total int64, unit string) Phase
	// Note writes a line of its own: a heading, a note on what is
	// measured, a partial result of the phase running (written above its
	// progress).
	Note(line string)
}

// Phase counts the units of one phase. Add may be called from many
// goroutines at once, inside the loops a benchmark times: it must cost no
// more than an atomic add (no lock, no drawing; see Tally). End is called
// once, after every Add, with the phase's result line ("": none).
type Phase interface {
	Add(n int64)
	End(line string)
}

// Tally is a count of units that Add raises with one atomic add and that
// a progress display polls with Load, away from the measured loops.
type Tally struct{ n atomic.Int64 }

// Add counts n more units.
func (t *Tally) Add(n int64) { t.n.Add(n) }

// Load is the units counted so far.
func (t *Tally) Load() int64 { return t.n.Load() }

// Lines is a Reporter that writes notes and the result line of each phase
// to w, each on a line of its own, and nothing while a phase runs.
func Lines(w io.Writer) Reporter { return lines{w: w} }

type lines struct{ w io.Writer }

func (l lines) Start(string, int64, string) Phase { return lineEnd(l) }
func (l lines) Note(line string)                  { fmt.Fprintln(l.w, line) }

// lineEnd is a phase of Lines: it counts nothing.
type lineEnd lines

func (lineEnd) Add(int64) {}
func (e lineEnd) End(line string) {
	if line != "" {
		fmt.Fprintln(e.w, line)
	}
}

// Counter is a Reporter for tests: the total each phase announced, the
// units it added, by name (summed at the phase's End), and the lines
// written.
type Counter struct {
	mu     sync.Mutex
	Totals map[string]int64 // the total each phase announced
	Done   map[string]int64 // the units each phase added
	Lines  []string         // notes and result lines, in order
}

// Start begins counting a phase.
func (c *Counter) Start(name string, total int64, _ string) Phase {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.Totals == nil {
		c.Totals, c.Done = map[string]int64{}, map[string]int64{}
	}
	c.Totals[name] = total
	return &counted{c: c, name: name}
}

// Note records line.
func (c *Counter) Note(line string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.Lines = append(c.Lines, line)
}

type counted struct {
	Tally
	c    *Counter
	name string
}

func (p *counted) End(line string) {
	p.c.mu.Lock()
	p.c.Done[p.name] += p.Load()
	p.c.mu.Unlock()
	if line != "" {
		p.c.Note(line)
	}
}
