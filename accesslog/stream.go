package accesslog

import (
	"errors"
	"sync"
	"sync/atomic"
)

// Stream hands each line written to it to every reader open at that
// moment. With no reader open, Active is false and callers skip the work
// of making a line at all: the log costs one atomic load per request.
//
// A reader that falls behind never slows the writers: each reader holds
// at most ReaderBuffer bytes not yet read, further lines are dropped for
// it, and once it has room again it reads a comment line that says how
// many. Write and the methods of Reader may be called concurrently.
type Stream struct {
	active atomic.Int32

	mu      sync.RWMutex
	readers map[*Reader]struct{}
}

// ReaderBuffer is how many bytes of lines a reader may have waiting.
const ReaderBuffer = 1 << 20

// Active tells whether anyone reads the stream.
func (s *Stream) Active() bool { return s.active.Load() > 0 }

// Write hands line (one line, newline included) to every reader.
func (s *Stream) Write(line []byte) {
	s.mu.RLock()
	for r := range s.readers {
		r.push(line)
	}
	s.mu.RUnlock()
}

// Open adds a reader; it gets the lines written from now on until Close.
func (s *Stream) Open() *Reader {
	r := &Reader{stream: s, wake: make(chan struct{}, 1), closed: make(chan struct{})}
	s.mu.Lock()
	if s.readers == nil {
		s.readers = make(map[*Reader]struct{})
	}
	s.readers[r] = struct{}{}
	s.mu.Unlock()
	s.active.Add(1)
	return r
}

// Reader is one reader of a Stream.
type Reader struct {
	stream *Stream
	wake   chan struct{} // a line came
	closed chan struct{}
	once   sync.Once

	mu      sync.Mutex
	buf     []byte
	dropped uint64 // lines dropped since the last one kept
}

// ErrCanceled is returned by Read when its cancel channel closed first.
var ErrCanceled = errors.New("access log read canceled")

// ErrClosed is returned by Read on a closed reader.
var ErrClosed = errors.New("access log reader closed")

func (r *Reader) push(line []byte) {
	r.mu.Lock()
	if len(r.buf)+len(line) > ReaderBuffer {
		r.dropped++
		r.mu.Unlock()
		return
	}
	r.appendDropped()
	r.buf = append(r.buf, line...)
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Read fills p with whole lines (a line longer than p is cut), waiting
// until there is at least one, cancel is closed (ErrCanceled) or the
// reader is closed (ErrClosed).
func (r *Reader) Read(cancel <-chan struct{}, p []byte) (int, error) {
	for {
		r.mu.Lock()
		if len(r.buf) == 0 {
			r.appendDropped()
		}
		n := wholeLines(r.buf, len(p))
		copy(p, r.buf[:n])
		left := copy(r.buf, r.buf[n:])
		r.buf = r.buf[:left]
		r.mu.Unlock()
		if n > 0 {
			return n, nil
		}
		select {
		case <-r.wake:
		case <-cancel:
			return 0, ErrCanceled
		case <-r.closed:
			return 0, ErrClosed
		}
	}
}

// wholeLines is how many bytes of buf, at most limit, end at a line's
// end; limit itself when not even one line fits.
func wholeLines(buf []byte, limit int) int {
	if len(buf) <= limit {
		return len(buf)
	}
	for i := limit - 1; i >= 0; i-- {
		if buf[i] == '\n' {
			return i + 1
		}
	}
	return limit
}

// Close removes the reader from its stream; a Read waiting returns.
func (r *Reader) Close() {
	r.once.Do(func() {
		r.stream.mu.Lock()
		delete(r.stream.readers, r)
		r.stream.mu.Unlock()
		r.stream.active.Add(-1)
		close(r.closed)
	})
}
