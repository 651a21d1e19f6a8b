package chunk

import (
	"sync"
	"sync/atomic"
)

// blockData is a block's bytes as several holders share them: its plain
// data, held by the memory cache, the readers waiting for its download and
// the disk cache's write queue; or its stored form, held by its upload and
// the disk cache's write queue. Bytes in a recycled buffer go back to their
// pool when the last reference is released; they must not be touched after
// that.
type blockData struct {
	bytes []byte
	buf   *[]byte    // the recycled buffer behind bytes (or behind the stored form they were decoded from); nil if none
	pool  *blockPool // where buf goes back
	refs  atomic.Int32
}

// newBlockData returns b with one reference, the caller's.
func newBlockData(b []byte, buf *[]byte, pool *blockPool) *blockData {
	d := &blockData{bytes: b, buf: buf, pool: pool}
	d.refs.Store(1)
	return d
}

func (d *blockData) hold() { d.refs.Add(1) }

func (d *blockData) release() {
	if d.refs.Add(-1) == 0 && d.buf != nil {
		d.pool.put(d.buf)
	}
}

// blockPool recycles the buffers of full-size blocks, those downloaded and
// those written: zeroing a fresh 4 MiB buffer for every block was a quarter
// of a mount's CPU reading a big file from S3, a sixth writing one.
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
