package dump

import (
	"errors"
	"io"
	"sync/atomic"
)

// writeBehindSize is the size of each buffer writeBehind hands over, and
// writeBehindBuffers how many may wait for the writing goroutine.
const (
	writeBehindSize    = 256 << 10
	writeBehindBuffers = 4
)

// writeBehind compresses and writes a dump on a goroutine of its own while
// the engine reads and the encoder encodes the records after, so that a
// dump uses two cores, as readAhead does for a load. Memory is bounded by
// writeBehindBuffers+2 buffers. A failure of the underlying writer is
// returned by the Write after it (so that a dump into a full disk or a
// closed pipe stops early) and by Close.
type writeBehind struct {
	out     io.Writer
	current []byte
	full    chan []byte
	free    chan []byte
	done    chan struct{}
	failed  atomic.Pointer[error]
	closed  bool
}

var errWriteBehindClosed = errors.New("dump writer used after Close")

func newWriteBehind(out io.Writer) *writeBehind {
	w := &writeBehind{out: out, full: make(chan []byte, writeBehindBuffers),
		free: make(chan []byte, writeBehindBuffers+2), done: make(chan struct{})}
	for range writeBehindBuffers + 1 {
		w.free <- make([]byte, 0, writeBehindSize)
	}
	w.current = make([]byte, 0, writeBehindSize)
	go w.run()
	return w
}

// run writes the full buffers in order until the channel closes; after a
// failure it only recycles them.
func (w *writeBehind) run() {
	defer close(w.done)
	for b := range w.full {
		if w.failed.Load() == nil {
			if _, err := w.out.Write(b); err != nil {
				w.failed.Store(&err)
			}
		}
		w.free <- b[:0]
	}
}

func (w *writeBehind) err() error {
	if p := w.failed.Load(); p != nil {
		return *p
	}
	return nil
}

// Write implements io.Writer.
func (w *writeBehind) Write(p []byte) (int, error) {
	if w.closed {
		return 0, errWriteBehindClosed
	}
	if err := w.err(); err != nil {
		return 0, err
	}
	n := len(p)
	for len(p) > 0 {
		if len(w.current) == writeBehindSize {
			w.full <- w.current
			w.current = <-w.free
		}
		take := min(writeBehindSize-len(w.current), len(p))
		w.current = append(w.current, p[:take]...)
		p = p[take:]
	}
	return n, nil
}

// Close hands over what is buffered, waits until everything is written and
// returns the first failure of the underlying writer. It does not close
// that writer.
func (w *writeBehind) Close() error {
	if w.closed {
		return errWriteBehindClosed
	}
	w.closed = true
	if len(w.current) > 0 {
		w.full <- w.current
	}
	w.current = nil
	close(w.full)
	<-w.done
	return w.err()
}
