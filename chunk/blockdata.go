package chunk

import (
	"sync"
	"sync/atomic"
)

// blockData is the plain data of one block as readers share it: the memory
// cache, the readers waiting for its download and the disk cache's write
// queue each hold a reference. A block downloaded into a recycled buffer
// goes back to its pool when the last reference is released; plain (and
// the stored form it was decoded from) must not be touched after that.
type blockData struct {
	plain []byte
	buf   *[]byte    // the recycled buffer behind plain or its stored form; nil if none
	pool  *blockPool // where buf goes back
	refs  atomic.Int32
}

// newBlockData returns plain with one reference, the caller's.
func newBlockData(plain []byte, buf *[]byte, pool *blockPool) *blockData {
	d := &blockData{plain: plain, buf: buf, pool: pool}
	d.refs.Store(1)
	return d
}

func (d *blockData) hold() { d.refs.Add(1) }

func (d *blockData) release() {
	if d.refs.Add(-1) == 0 && d.buf != nil {
		d.pool.put(d.buf)
	}
}

// blockPool recycles the buffers that full-size blocks are downloaded
// into: zeroing a fresh 4 MiB buffer for every block downloaded was a
// quarter of a mount's CPU reading a big file from S3.
type blockPool struct {
	size   int // capacity of every buffer: a stored full-size block
	pool   sync.Pool
	allocs atomic.Int64 // buffers made rather than recycled
}

func newBlockPool(blockSize int) *blockPool {
	return &blockPool{size: headerSize + blockSize}
}

func (p *blockPool) get() *[]byte {
	if b, ok := p.pool.Get().(*[]byte); ok {
		return b
	}
	p.allocs.Add(1)
	b := make([]byte, 0, p.size)
	return &b
}

func (p *blockPool) put(b *[]byte) { p.pool.Put(b) }
