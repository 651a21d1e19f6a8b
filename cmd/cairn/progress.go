package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// isTerminal reports whether f is a terminal, where progress is shown.
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// progress redraws one line on a terminal while a long command runs:
// the count so far, the rate, and, when a total is known, the share done
// and the time left. On anything but a terminal it writes nothing.
type progress struct {
	out   io.Writer
	verb  string
	count func() (done, total uint64)
	start time.Time
	stop  chan struct{}
	done  chan struct{}
}

// startProgress shows progress on stderr if it is a terminal; count
// reports the inodes done and the expected total (0: unknown).
func startProgress(verb string, count func() (done, total uint64)) *progress {
	p := &progress{out: os.Stderr, verb: verb, count: count, start: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	if !isTerminal(os.Stderr) {
		close(p.done)
		p.out = nil
		return p
	}
	go func() {
		defer close(p.done)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				p.draw()
				fmt.Fprintln(p.out)
				return
			case <-t.C:
				p.draw()
			}
		}
	}()
	return p
}

func (p *progress) draw() {
	done, total := p.count()
	elapsed := time.Since(p.start).Seconds()
	rate := 0.0
	if elapsed > 0 {
		rate = float64(done) / elapsed
	}
	line := fmt.Sprintf("%s %d inodes (%.0f/s)", p.verb, done, rate)
	if total > 0 && done <= total {
		line = fmt.Sprintf("%s %d of %d inodes, %d%% (%.0f/s", p.verb, done, total, done*100/total, rate)
		if rate > 0 {
			line += fmt.Sprintf(", %s left", (time.Duration(float64(total-done)/rate) * time.Second).Round(time.Second))
		}
		line += ")"
	}
	fmt.Fprintf(p.out, "\r\033[K%s", line)
}

// finish stops the redrawing, leaving the last line on the terminal.
func (p *progress) finish() {
	if p.out != nil {
		close(p.stop)
	}
	<-p.done
}
