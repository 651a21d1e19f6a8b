package chunk

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Writer collects the data of one slice in memory and uploads it block by
// block. Its methods may be called from several goroutines, but the vfs
// layer is expected to order them: writes, FlushTo as data becomes final,
// then Finish or Abort once.
type Writer struct {
	s  *Store
	id uint64

	mu       sync.Mutex
	blocks   map[int]*wblock
	sealed   int   // blocks below this index are uploading or uploaded
	flushed  int64 // highest FlushTo offset
	uploads  []chan struct{}
	uploaded map[int]int // block index -> length of the stored block
	failed   map[int]failedBlock
	err      error // first upload failure since the last Finish
	done     bool  // Finish succeeded or Abort was called
}

// wblock is one block being filled. buf grows on demand up to the block
// size; reserved is what it holds of the Store's memory budget. A block
// that reaches the full size gets a recycled buffer, which is not zeroed:
// buf[:valid] holds what was written or zeros, and the gaps a write skips
// over are zeroed as it does.
type wblock struct {
	mem      []byte // headerSize bytes of room for the stored header, then buf
	buf      []byte
	valid    int
	pooled   *[]byte // the recycled buffer behind mem; nil if mem is its own
	reserved int64
}

// failedBlock is a block whose upload failed; its data is kept so that
// Finish can try again.
type failedBlock struct {
	b *wblock
	n int
}

// minGrowth is the smallest buffer a block gets, so that small writes do
// not reallocate again and again.
const minGrowth = 64 << 10

// NewWriter starts slice id.
func (s *Store) NewWriter(id uint64) *Writer {
	return &Writer{s: s, id: id, blocks: make(map[int]*wblock), uploaded: make(map[int]int), failed: make(map[int]failedBlock)}
}

// ID is the slice id the Writer was started with.
func (w *Writer) ID() uint64 { return w.id }

// WriteAt copies p into the slice at off. It blocks while the Store's
// buffer memory is spent and uploads are running that will free some.
// Writing below an offset passed to FlushTo is an error.
func (w *Writer) WriteAt(p []byte, off uint32) (int, error) {
	if int64(off)+int64(len(p)) > MaxSliceSize {
		return 0, fmt.Errorf("write %d bytes at %d of slice %d: beyond the %d-byte slice limit", len(p), off, w.id, MaxSliceSize)
	}
	bs := w.s.cfg.BlockSize
	written := 0
	for written < len(p) {
		pos := int64(off) + int64(written)
		idx := int(pos / int64(bs))
		boff := int(pos % int64(bs))
		n := min(len(p)-written, bs-boff)
		b, err := w.grow(idx, boff+n)
		if err != nil {
			return written, err
		}
		w.mu.Lock()
		if idx < w.sealed || w.done {
			w.mu.Unlock()
			return written, fmt.Errorf("write at %d of slice %d: already flushed", pos, w.id)
		}
		if boff > b.valid {
			clear(b.buf[b.valid:boff])
		}
		copy(b.buf[boff:], p[written:written+n])
		b.valid = max(b.valid, boff+n)
		w.mu.Unlock()
		written += n
	}
	return written, nil
}

// grow returns block idx with a buffer of at least end bytes, taking the
// memory from the budget without holding the Writer's lock.
func (w *Writer) grow(idx, end int) (*wblock, error) {
	bs := w.s.cfg.BlockSize
	for {
		w.mu.Lock()
		if idx < w.sealed || w.done {
			w.mu.Unlock()
			return nil, fmt.Errorf("write to block %d of slice %d: already flushed", idx, w.id)
		}
		b := w.blocks[idx]
		if b == nil {
			b = &wblock{}
			w.blocks[idx] = b
		}
		have := len(b.buf)
		if have >= end {
			w.mu.Unlock()
			return b, nil
		}
		w.mu.Unlock()
		size := min(max(end, 2*have, minGrowth), bs)
		if idx > 0 || end > bs/4 {
			size = bs // a big slice: growing step by step would only copy
		}
		w.s.budget.acquire(int64(size - have))
		w.mu.Lock()
		if len(b.buf) != have || w.blocks[idx] != b {
			// Someone else grew or dropped it meanwhile; give back and retry.
			w.mu.Unlock()
			w.s.budget.release(int64(size - have))
			continue
		}
		var mem []byte
		var pooled *[]byte
		if size == bs {
			pooled = w.s.bufs.get()
			mem = (*pooled)[:headerSize+size]
		} else {
			mem = make([]byte, headerSize+size)
		}
		copy(mem[headerSize:], b.buf[:b.valid])
		b.mem, b.buf, b.pooled = mem, mem[headerSize:], pooled
		b.reserved += int64(size - have)
		w.mu.Unlock()
		return b, nil
	}
}

// FlushTo declares the bytes below off final: every whole block below it
// starts uploading in the background.
func (w *Writer) FlushTo(off uint32) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return fmt.Errorf("flush slice %d: already finished", w.id)
	}
	if int64(off) > w.flushed {
		w.flushed = int64(off)
	}
	bs := w.s.cfg.BlockSize
	for (w.sealed+1)*bs <= int(off) {
		w.sealLocked(w.sealed, bs)
	}
	return nil
}

// sealLocked starts the upload of block idx as a block of length n.
func (w *Writer) sealLocked(idx, n int) {
	b := w.blocks[idx]
	delete(w.blocks, idx)
	if b == nil {
		b = &wblock{}
	}
	w.sealed = idx + 1
	w.startUploadLocked(idx, n, b)
}

func (w *Writer) startUploadLocked(idx, n int, b *wblock) {
	done := make(chan struct{})
	w.uploads = append(w.uploads, done)
	w.s.budget.uploadStarted()
	w.s.bg.Add(1)
	go w.upload(idx, n, b, done)
}

func (w *Writer) upload(idx, n int, b *wblock, done chan struct{}) {
	defer w.s.bg.Done()
	defer close(done)
	room := b.mem
	if len(b.buf) >= n {
		room = room[:headerSize+n]
		if b.valid < n {
			clear(room[headerSize+b.valid:]) // never written: zeros
		}
	} else {
		room = make([]byte, headerSize+n) // the tail was never written: zeros
		copy(room[headerSize:], b.buf)
	}
	key := blockKey(w.id, idx, n)
	w.s.uploadSem <- struct{}{}
	raw := newBlockData(w.s.codec.encodeRoom(room), b.pooled, w.s.bufs)
	err := w.s.store(key, raw)
	<-w.s.uploadSem
	if err != nil {
		w.s.budget.uploadDone(0) // the data stays for another try
		w.mu.Lock()
		w.failed[idx] = failedBlock{b, n}
		if w.err == nil {
			w.err = asIOError(fmt.Errorf("upload block %d of slice %d: %w", idx, w.id, err))
		}
		w.mu.Unlock()
		return
	}
	raw.release() // the buffer is recycled once the disk cache is done with it
	b.mem, b.buf, b.pooled = nil, nil, nil
	w.s.budget.uploadDone(b.reserved)
	w.mu.Lock()
	w.uploaded[idx] = n
	w.mu.Unlock()
}

// Finish uploads the rest of the first length bytes and waits until every
// block of the slice is stored. length must not be below an offset given to
// FlushTo. On nil the slice is durable in the object store. On an error the
// data of the blocks that failed is kept: call Finish again to retry them,
// or Abort.
func (w *Writer) Finish(ctx context.Context, length uint32) error {
	w.mu.Lock()
	if w.done {
		w.mu.Unlock()
		return fmt.Errorf("finish slice %d: already finished", w.id)
	}
	if int64(length) < w.flushed {
		w.mu.Unlock()
		return fmt.Errorf("finish slice %d at %d bytes: below the flushed offset %d", w.id, length, w.flushed)
	}
	bs := w.s.cfg.BlockSize
	nb := numBlocks(length, bs)
	w.err = nil
	for idx, f := range w.failed {
		delete(w.failed, idx)
		w.startUploadLocked(idx, f.n, f.b)
	}
	for w.sealed < nb {
		w.sealLocked(w.sealed, blockLen(length, bs, w.sealed))
	}
	w.dropUnsealedLocked()
	waits := append([]chan struct{}(nil), w.uploads...)
	w.mu.Unlock()

	for _, c := range waits {
		select {
		case <-c:
		case <-ctx.Done():
			return fmt.Errorf("finish slice %d: %w", w.id, ctx.Err())
		}
	}
	w.mu.Lock()
	err := w.err
	w.mu.Unlock()
	if err == nil {
		// The slice is committed once Finish returns: its blocks must be
		// durable in a store that flushes lazily.
		err = w.s.syncBlocks(ctx)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		if w.err == nil {
			w.err = err
		}
		return w.err
	}
	if w.err != nil {
		return w.err
	}
	w.done = true
	return nil
}

// dropUnsealedLocked frees the buffers of blocks that will not be uploaded.
func (w *Writer) dropUnsealedLocked() {
	for idx, b := range w.blocks {
		w.s.budget.release(b.reserved)
		delete(w.blocks, idx)
	}
	for idx, f := range w.failed {
		w.s.budget.release(f.b.reserved)
		delete(w.failed, idx)
	}
}

// Abort drops the slice: its buffers are freed now, and the blocks already
// uploaded are deleted in the background once their uploads end.
func (w *Writer) Abort() {
	w.mu.Lock()
	if w.done {
		w.mu.Unlock()
		return
	}
	w.done = true
	w.sealed = MaxSliceSize // refuse writes that race with Abort
	w.dropUnsealedLocked()
	waits := append([]chan struct{}(nil), w.uploads...)
	w.mu.Unlock()
	w.s.bg.Add(1)
	go func() {
		defer w.s.bg.Done()
		for _, c := range waits {
			<-c
		}
		w.mu.Lock()
		uploaded := w.uploaded
		w.uploaded = nil
		w.dropUnsealedLocked() // blocks whose upload failed after Abort
		w.mu.Unlock()
		for idx, n := range uploaded {
			if err := w.s.deleteBlock(context.Background(), blockKey(w.id, idx, n)); err != nil && !errors.Is(err, context.Canceled) {
				w.s.log.Warn("delete block of aborted slice", "slice", w.id, "block", idx, "err", err)
			}
		}
	}()
}

// store puts a block in the object store, or, in writeback mode, stages it
// on local disk; when staging fails (disk full or broken) the block goes to
// the object store directly.
func (s *Store) store(key string, raw *blockData) error {
	if s.staging != nil {
		err := s.staging.stage(key, raw.bytes)
		if err == nil {
			return nil
		}
		s.log.Warn("staging a block failed; uploading it directly", "key", key, "err", err)
	}
	start := time.Now()
	err := s.obj.Put(context.Background(), key, raw.bytes)
	s.stats.put(len(raw.bytes), time.Since(start), err)
	if err == nil && s.cachesWrite(key) {
		// Put into the disk cache too, if the write caching policy asks.
		raw.hold()
		s.disk.put(key, raw.bytes, raw.release)
	}
	return err
}

// cachesWrite reports whether the write caching policy keeps block key in
// the disk cache once it is stored.
func (s *Store) cachesWrite(key string) bool {
	if s.disk == nil {
		return false
	}
	small := keyBlockLen(key) < s.cfg.BlockSize
	return s.cfg.CacheWrites == CacheAllWrites || s.cfg.CacheWrites == CacheSmallWrites && small
}
