package vfs

import (
	"sync"
	"sync/atomic"
	"syscall"

	"cairn/meta"
)

// requestCounters are what the FUSE layer reports of the requests it
// served besides their latency: failures by errno, and the bytes read
// and written. The zero value is ready to use.
type requestCounters struct {
	mu       sync.Mutex
	failures map[RequestError]uint64

	readBytes    atomic.Uint64
	writtenBytes atomic.Uint64
}

// RequestError names one kind of failed FUSE request: its operation and
// the errno the kernel got.
type RequestError struct {
	Op    string
	Errno syscall.Errno
}

// ObserveError counts one FUSE request named op answered with errno.
func (v *VFS) ObserveError(op string, errno syscall.Errno) {
	c := &v.requests
	c.mu.Lock()
	if c.failures == nil {
		c.failures = make(map[RequestError]uint64)
	}
	c.failures[RequestError{Op: op, Errno: errno}]++
	c.mu.Unlock()
}

// RequestErrors returns how many FUSE requests failed, by operation and
// errno.
func (v *VFS) RequestErrors() map[RequestError]uint64 {
	c := &v.requests
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[RequestError]uint64, len(c.failures))
	for k, n := range c.failures {
		out[k] = n
	}
	return out
}

// Requests returns the latency record of the FUSE requests served, each
// named "fuse." and the operation (see Observe).
func (v *VFS) Requests() *meta.Metrics { return v.metrics }

// ReadBytes and WrittenBytes are the bytes read and written through open
// files since the VFS was made.
func (v *VFS) ReadBytes() uint64    { return v.requests.readBytes.Load() }
func (v *VFS) WrittenBytes() uint64 { return v.requests.writtenBytes.Load() }

// BufferedBytes is what has been written through open files and not
// committed to the volume yet.
func (v *VFS) BufferedBytes() uint64 { return v.buffered() }
