package chunk

import (
	"sync"
	"syscall"
)

var errEIO error = syscall.EIO

// readahead remembers where the reads of each recently read slice have got
// to; a read that starts near there (the kernel may deliver a sequential
// reader's requests slightly out of order), or at the start of a slice, is
// taken as sequential. The table is bounded: when full it is forgotten
// whole, which costs at most one missed readahead per reader.
type readahead struct {
	mu   sync.Mutex
	next map[uint64]uint32
}

const (
	readaheadStreams = 4096
	// nearby is how far from where a reader got to its next read may start
	// and still count as sequential: one FUSE request of the largest size.
	nearby = 1 << 20
)

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
	if !ok || end > prev || int64(prev)-int64(off) > nearby {
		r.next[id] = end
	}
	return off == 0 || (ok && int64(off) >= int64(prev)-nearby && int64(off) <= int64(prev)+nearby)
}

func (r *readahead) forget(id uint64) {
	r.mu.Lock()
	delete(r.next, id)
	r.mu.Unlock()
}
