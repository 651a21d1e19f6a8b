package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"cairn/bench/phase"

	"github.com/schollz/progressbar/v3"
)

// benchProgress is how the benchmarks (bench, objbench, mdtest) show
// their phases: where progress is shown (see showProgress) a bar for the
// phase running that gives way to the phase's result line; elsewhere the
// lines alone, on stderr, and nothing with --quiet (see informing). Call done when the
// benchmark returns, to take away the bar of a phase that failed.
func benchProgress() (progress phase.Reporter, done func()) {
	if !showProgress() {
		var lines io.Writer = os.Stderr
		if !informing() {
			lines = io.Discard
		}
		return phase.Lines(lines), func() {}
	}
	bars := &phaseBars{}
	return bars, bars.close
}

// phaseBars draws the bar of one phase at a time on stderr.
type phaseBars struct {
	running *phaseBar // nil between phases
}

// Start draws a bar for the phase: count, rate, and with a total the
// share done and the time left.
func (b *phaseBars) Start(name string, total int64, unit string) phase.Phase {
	if total <= 0 {
		total = -1
	}
	var extra []progressbar.Option
	if unit == "bytes" {
		extra = append(extra, progressbar.OptionShowBytes(true), progressbar.OptionUseIECUnits(true))
	}
	p := &phaseBar{bars: b, bar: newBar(total, name, unit, extra...), stop: make(chan struct{}), stopped: make(chan struct{})}
	p.bar.RenderBlank()
	b.running = p
	go p.poll()
	return p
}

// barPoll is how often a phase's bar shows its count: the phase's Add is
// an atomic add in the measured loops, the drawing happens here.
const barPoll = 100 * time.Millisecond

// Note writes line above the bar of the phase running, if any.
func (b *phaseBars) Note(line string) {
	if b.running != nil {
		b.running.bar.Clear()
	}
	fmt.Fprintln(os.Stderr, line)
}

// close takes away the bar of a phase that never ended.
func (b *phaseBars) close() {
	if b.running != nil {
		b.running.erase()
	}
}

type phaseBar struct {
	phase.Tally // Add
	bars        *phaseBars
	bar         *progressbar.ProgressBar
	stop        chan struct{} // closed by erase
	stopped     chan struct{} // closed by poll when it is done drawing
}

// poll draws the count on the bar until erase stops it.
func (p *phaseBar) poll() {
	defer close(p.stopped)
	tick := time.NewTicker(barPoll)
	defer tick.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-tick.C:
			p.bar.Set64(p.Load())
		}
	}
}

// End shows the bar at the phase's final count, then replaces it by the
// phase's result line.
func (p *phaseBar) End(line string) {
	p.stopPolling()
	p.bar.Set64(p.Load())
	p.erase()
	if line != "" {
		fmt.Fprintln(os.Stderr, line)
	}
}

// stopPolling stops poll; it may be called more than once.
func (p *phaseBar) stopPolling() {
	select {
	case <-p.stop:
	default:
		close(p.stop)
	}
	<-p.stopped
}

func (p *phaseBar) erase() {
	p.stopPolling()
	p.bar.Exit()
	p.bar.Clear()
	p.bars.running = nil
}
