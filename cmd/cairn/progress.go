package main

import (
	"fmt"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/sys/unix"
)

// isTerminal reports whether f is a terminal, where progress is shown.
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// showProgress reports whether long commands draw progress: on a terminal
// only, and not with --quiet (or a --log-level above info).
func showProgress() bool {
	return informing() && isTerminal(os.Stderr)
}

// newBar is a progress bar on standard error; max -1 when the total is
// not known (a spinner). Every bar of cairn looks alike; extra options
// may only add to that (bytes shown as KiB, MiB, ...).
func newBar(max int64, description, unit string, extra ...progressbar.Option) *progressbar.ProgressBar {
	options := []progressbar.Option{
		progressbar.OptionSetWriter(os.Stderr),
		progressbar.OptionSetDescription(description),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString(unit),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionThrottle(200 * time.Millisecond),
		progressbar.OptionSpinnerType(14),
		progressbar.OptionSetWidth(30),
	}
	return progressbar.NewOptions64(max, append(options, extra...)...)
}

// progress shows how many inodes a long command has done so far, their
// rate and, when a total is known, the share done and the time left.
// Where progress is not shown (see showProgress) it draws nothing.
type progress struct {
	bar  *progressbar.ProgressBar // nil when not shown
	stop func()
}

// startProgress shows progress; count reports the inodes done and the
// expected total (0: unknown, which may become known later).
func startProgress(verb string, count func() (done, total uint64)) *progress {
	if !showProgress() {
		return &progress{stop: func() {}}
	}
	p := &progress{bar: newBar(-1, verb, "inodes")}
	known := int64(-1)
	p.stop = showEvery(func() {
		done, total := count()
		if total > 0 && int64(total) != known && done <= total {
			known = int64(total)
			p.bar.ChangeMax64(known)
		}
		p.bar.Set64(int64(done))
	})
	return p
}

// finish stops the drawing, leaving the last state on the terminal.
func (p *progress) finish() {
	p.stop()
	if p.bar != nil {
		p.bar.Exit()
		fmt.Fprintln(os.Stderr)
	}
}
