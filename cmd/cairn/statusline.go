package main

import (
	"fmt"
	"os"
	"sync"
	"time"
)

// statusLine redraws one free-form status line on standard error while a
// long command runs (counts of objects, files, bytes: what progress, which
// counts inodes, does not say), at most five times a second, and only when
// standard error is a terminal. It is safe for concurrent use.
type statusLine struct {
	mu      sync.Mutex
	on      bool
	drawn   time.Time
	pending string
}

func newStatusLine() *statusLine {
	return &statusLine{on: isTerminal(os.Stderr)}
}

// show sets the status line; it is drawn now if the last drawing is old
// enough, else by a later show or by done.
func (s *statusLine) show(format string, args ...any) {
	if !s.on {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending = fmt.Sprintf(format, args...)
	if time.Since(s.drawn) >= 200*time.Millisecond {
		s.draw()
	}
}

func (s *statusLine) draw() {
	fmt.Fprintf(os.Stderr, "\r\033[K%s", s.pending)
	s.drawn = time.Now()
}

// done draws the last status and ends its line.
func (s *statusLine) done() {
	if !s.on {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending != "" {
		s.draw()
		fmt.Fprintln(os.Stderr)
	}
}
