package chunk

import (
	"sync"
	"syscall"
)

var errEIO error = syscall.EIO

// readahead remembers where the last read of each recently read slice
// ended; a read that starts there, or at the start of a slice, is taken as
// sequential. The table is bounded: when full it is forgotten whole, which
// costs at most one missed readahead per reader.
type readahead struct {
	mu   sync.Mutex
	next map[uint64]uint32
}

const readaheadStreams = 4096

func newReadahead() *readahead {
	return &readahead{next: make(map[uint64]uint32)}
}

func (r *readahead) sequential(id uint64, off, end uint32) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	prev, ok := r.next[id]
	if !ok && len(r.next) >= readaheadStreams {
		clear(r.next)
	}
	r.next[id] = end
	return off == 0 || (ok && prev == off)
}

func (r *readahead) forget(id uint64) {
	r.mu.Lock()
	delete(r.next, id)
	r.mu.Unlock()
}
