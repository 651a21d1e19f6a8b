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
//
// The window a sequential reader gets grows with what it has read in a
// row: a program that reads the first few KiB of a big file (file(1), a
// thumbnailer) costs a few blocks of downloads, one that streams it keeps
// up to Config.Readahead in flight, which a remote store needs to reach
// its bandwidth rather than one block's latency per block.
type readahead struct {
	mu      sync.Mutex
	streams map[uint64]stream
}

type stream struct {
	next uint32 // where the reader has got to
	run  uint32 // bytes read sequentially up to next
}

const (
	readaheadStreams = 4096
	// nearby is how far from where a reader got to its next read may start
	// and still count as sequential: one FUSE request of the largest size.
	nearby = 1 << 20
)

func newReadahead() *readahead {
	return &readahead{streams: make(map[uint64]stream)}
}

// sequential records a read of [off,end) of slice id and says whether it
// continues a sequential run, and how many bytes that run has covered.
func (r *readahead) sequential(id uint64, off, end uint32) (bool, uint32) {
	r.mu.Lock()
	defer r.mu.Unlock()
	prev, ok := r.streams[id]
	if !ok && len(r.streams) >= readaheadStreams {
		clear(r.streams)
	}
	seq := off == 0 || (ok && int64(off) >= int64(prev.next)-nearby && int64(off) <= int64(prev.next)+nearby)
	cur := prev
	switch {
	case !seq, !ok, off == 0 && prev.next > nearby:
		cur = stream{next: end, run: end - off} // a new run starts here
	case end > prev.next:
		cur = stream{next: end, run: prev.run + (end - prev.next)}
	}
	r.streams[id] = cur
	return seq, cur.run
}

func (r *readahead) forget(id uint64) {
	r.mu.Lock()
	delete(r.streams, id)
	r.mu.Unlock()
}
