package main

import (
	"fmt"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
)

// statusLine shows one free-form status beside a spinner while a long
// command runs (counts of objects, files, bytes: what progress, which
// counts inodes, does not say), redrawn at most five times a second, and
// only where progress is shown (see showProgress). It is safe for
// concurrent use.
type statusLine struct {
	bar *progressbar.ProgressBar // nil when not shown
}

func newStatusLine() *statusLine {
	if !showProgress() {
		return &statusLine{}
	}
	return &statusLine{bar: progressbar.NewOptions64(-1,
		progressbar.OptionSetWriter(os.Stderr),
		progressbar.OptionSpinnerType(14),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionThrottle(200*time.Millisecond),
	)}
}

// show sets the status; the bar draws it unless it drew less than 200 ms
// ago (then a later show or done does).
func (s *statusLine) show(format string, args ...any) {
	if s.bar == nil {
		return
	}
	s.bar.Describe(fmt.Sprintf(format, args...))
}

// done draws the last status and ends its line.
func (s *statusLine) done() {
	if s.bar == nil {
		return
	}
	s.bar.Add(0)
	s.bar.Exit()
	fmt.Fprintln(os.Stderr)
}
