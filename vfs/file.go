package vfs

import (
	"sync"
	"time"

	"cairn/chunk"
	"cairn/meta"
)

// file is the state this client shares between the open handles of one
// regular file: its buffered writes and its cached slice lists. It lives
// while a handle is open or writes are pending.
type file struct {
	ino meta.Ino

	mu       sync.Mutex
	cond     *sync.Cond // signalled when a commit batch ends
	refs     int        // open handles
	open     map[uint32]*sliceWriter
	sealed   []*sliceWriter // waiting for commit, in order
	inflight []*sliceWriter // being committed now
	running  bool           // a commit goroutine is at work
	// Failed commits: err is the first one not yet reported, errSeq counts
	// them, reported is errSeq as the last flush that reported one saw it.
	// Every flush that was waiting when a commit failed reports it, so
	// that a close of a descriptor another process inherited cannot take
	// the error from the writer's fsync.
	err       error
	errSeq    uint64
	reported  uint64
	length    uint64 // end of the furthest buffered write
	mtime     int64  // of the latest buffered write
	lastWrite time.Time
	views     map[uint32][]meta.Slice // resolved slice lists, by chunk
	gen       uint64                  // bumped whenever views are dropped
	readNext  uint64                  // where the last read ended
}

// invalidate drops the cached slice lists (all when idx < 0). f.mu is held.
func (f *file) invalidate(idx int64) {
	f.gen++
	if idx < 0 {
		clear(f.views)
		return
	}
	delete(f.views, uint32(idx))
}

// sliceWriter buffers the writes that go into one new slice of one chunk.
// Its data starts at chunk position start; it accepts writes that keep the
// written range contiguous and do not touch what was already handed to
// the uploader (below flushed).
type sliceWriter struct {
	w       *chunk.Writer
	idx     uint32
	start   uint32 // position in the chunk of the slice's first byte
	end     uint32 // bytes written, from start
	flushed uint32 // bytes below this (from start) are being uploaded
	mtime   int64
}

func newFile(ino meta.Ino) *file {
	f := &file{ino: ino, open: make(map[uint32]*sliceWriter), views: make(map[uint32][]meta.Slice)}
	f.cond = sync.NewCond(&f.mu)
	return f
}

// pending reports whether writes are buffered or being committed.
// f.mu is held.
func (f *file) pending() bool {
	return len(f.open) > 0 || len(f.sealed) > 0 || len(f.inflight) > 0 || f.running
}

// overlaps reports whether buffered writes touch [off, off+n). f.mu is held.
func (f *file) overlaps(off, n uint64) bool {
	hit := func(sw *sliceWriter) bool {
		lo := uint64(sw.idx)*meta.ChunkSize + uint64(sw.start)
		hi := lo + uint64(sw.end)
		return lo < off+n && off < hi
	}
	for _, sw := range f.open {
		if hit(sw) {
			return true
		}
	}
	for _, sw := range f.sealed {
		if hit(sw) {
			return true
		}
	}
	for _, sw := range f.inflight {
		if hit(sw) {
			return true
		}
	}
	return false
}

// getFile returns the shared state of ino, creating it; the caller holds
// a reference it must give back with putFile.
func (v *VFS) getFile(ino meta.Ino) *file {
	v.mu.Lock()
	defer v.mu.Unlock()
	f := v.files[ino]
	if f == nil {
		f = newFile(ino)
		v.files[ino] = f
	}
	f.mu.Lock()
	f.refs++
	f.mu.Unlock()
	return f
}

// putFile drops a reference; the state goes when nothing holds it and
// nothing is pending.
func (v *VFS) putFile(f *file) {
	v.mu.Lock()
	defer v.mu.Unlock()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refs--
	if f.refs <= 0 && !f.pending() && v.files[f.ino] == f {
		delete(v.files, f.ino)
	}
}

// lookupFile returns the state of ino if this client has any.
func (v *VFS) lookupFile(ino meta.Ino) *file {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.files[ino]
}

// overlay corrects attributes read from metadata for writes still
// buffered here.
func (v *VFS) overlay(ino meta.Ino, a meta.Attr) meta.Attr {
	f := v.lookupFile(ino)
	if f == nil {
		return a
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.pending() {
		if f.length > a.Length {
			a.Length = f.length
		}
		if f.mtime > a.Mtime {
			a.Mtime = f.mtime
			a.Ctime = f.mtime
		}
	}
	return a
}
