package vfs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"cairn/meta"
)

// write buffers data at offset off of f.
func (v *VFS) write(ctx context.Context, f *file, data []byte, off uint64) (int, error) {
	if len(data) == 0 {
		return 0, nil
	}
	end := off + uint64(len(data))
	if end > meta.MaxLength {
		return 0, meta.ErrTooBig
	}
	if err := v.checkSpace(ctx, f, end); err != nil {
		return 0, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.errSeq != f.reported {
		return 0, f.err // until the next flush reports it
	}
	now := time.Now().UnixNano()
	written := 0
	for written < len(data) {
		pos := off + uint64(written)
		idx := uint32(pos / meta.ChunkSize)
		inChunk := uint32(pos % meta.ChunkSize)
		n := min(uint64(len(data)-written), meta.ChunkSize-uint64(inChunk))
		if err := v.writeChunk(ctx, f, idx, inChunk, data[written:written+int(n)], now); err != nil {
			return written, err
		}
		written += int(n)
	}
	if end > f.length {
		f.length = end
	}
	f.mtime = now
	f.lastWrite = time.Now()
	return written, nil
}

// writeChunk puts p at position pos of chunk idx. f.mu is held.
func (v *VFS) writeChunk(ctx context.Context, f *file, idx, pos uint32, p []byte, mtime int64) error {
	sw := f.open[idx]
	if sw != nil && (pos < sw.start+sw.flushed || pos > sw.start+sw.end) {
		v.seal(f, sw)
		sw = nil
	}
	if sw == nil {
		id, err := v.client.NewSliceID(ctx)
		if err != nil {
			return fmt.Errorf("new slice for inode %d: %w", f.ino, err)
		}
		sw = &sliceWriter{w: v.store.NewWriter(id), idx: idx, start: pos}
		f.open[idx] = sw
	}
	rel := pos - sw.start
	if _, err := sw.w.WriteAt(p, rel); err != nil {
		return fmt.Errorf("buffer write of inode %d: %w", f.ino, err)
	}
	if e := rel + uint32(len(p)); e > sw.end {
		v.pendingBytes.Add(int64(e - sw.end))
		sw.end = e
	}
	sw.mtime = mtime
	bs := v.blockSize()
	if full := sw.end / bs * bs; full > sw.flushed {
		if err := sw.w.FlushTo(full); err != nil {
			return fmt.Errorf("upload blocks of inode %d: %w", f.ino, err)
		}
		sw.flushed = full
	}
	if sw.start+sw.end == meta.ChunkSize {
		v.seal(f, sw)
	}
	return nil
}

func (v *VFS) blockSize() uint32 {
	return uint32(v.store.BlockSize())
}

// seal stops sw taking writes and queues it for commit. f.mu is held.
func (v *VFS) seal(f *file, sw *sliceWriter) {
	if f.open[sw.idx] == sw {
		delete(f.open, sw.idx)
	}
	f.sealed = append(f.sealed, sw)
	if !f.running {
		f.running = true
		go v.commitLoop(f)
	}
}

// sealAll queues every open writer of f. f.mu is held.
func (v *VFS) sealAll(f *file) {
	for _, sw := range f.open {
		v.seal(f, sw)
	}
}

// flush commits everything written to f so far and returns the first
// error a commit met since the last report.
func (v *VFS) flush(ctx context.Context, f *file) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	since := f.reported
	v.sealAll(f)
	for f.running {
		f.cond.Wait()
	}
	if f.errSeq == since {
		return nil
	}
	f.reported = f.errSeq
	return f.err
}

// commitLoop commits sealed writers in the order they were sealed, so
// that a later write to the same bytes lands in a later slice record.
func (v *VFS) commitLoop(f *file) {
	ctx := context.Background()
	for {
		f.mu.Lock()
		batch := f.sealed
		f.sealed = nil
		if len(batch) == 0 {
			f.inflight = nil
			f.running = false
			f.cond.Broadcast()
			f.mu.Unlock()
			return
		}
		f.inflight = batch
		f.mu.Unlock()
		err := v.commit(ctx, f, batch)
		f.mu.Lock()
		if err != nil {
			if f.errSeq == f.reported {
				f.err = err
			}
			f.errSeq++
		}
		f.inflight = nil
		f.mu.Unlock()
	}
}

// commit uploads the batch's remaining data, all at once, then records
// the slices in order: data is stored before metadata points at it.
func (v *VFS) commit(ctx context.Context, f *file, batch []*sliceWriter) error {
	errs := make([]error, len(batch))
	var wg sync.WaitGroup
	for i, sw := range batch {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = sw.w.Finish(ctx, sw.end)
		}()
	}
	wg.Wait()
	var first error
	for i, sw := range batch {
		v.pendingBytes.Add(-int64(sw.end))
		if errs[i] != nil {
			sw.w.Abort()
			first = cmp(first, fmt.Errorf("upload slice %d of inode %d: %w", sw.w.ID(), f.ino, errs[i]))
			continue
		}
		s := meta.Slice{Pos: sw.start, ID: sw.w.ID(), Size: sw.end, Len: sw.end}
		_, records, err := v.client.Write(ctx, f.ino, sw.idx, s, sw.mtime)
		f.mu.Lock()
		f.invalidate(int64(sw.idx))
		f.mu.Unlock()
		if err != nil {
			if rerr := v.store.Remove(ctx, s.ID, s.Size); rerr != nil {
				slog.Warn("remove uncommitted slice", "slice", s.ID, "err", rerr)
			}
			first = cmp(first, fmt.Errorf("commit slice %d to chunk %d of inode %d: %w", s.ID, sw.idx, f.ino, err))
			continue
		}
		if records >= v.cfg.CompactAfter {
			v.startCompact(f.ino, sw.idx)
		}
	}
	if first != nil && !errors.Is(first, meta.ErrNotFound) {
		slog.Error("write back failed", "inode", f.ino, "err", first)
	}
	return first
}

func cmp(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// checkSpace refuses a write that would grow f to end past the volume's
// capacity, or past a directory quota above it (meta.ErrQuota).
func (v *VFS) checkSpace(ctx context.Context, f *file, end uint64) error {
	if err := v.client.CheckGrowth(ctx, f.ino, end); err != nil {
		return err
	}
	if v.format.Capacity == 0 {
		return nil
	}
	a, err := v.client.GetAttr(ctx, f.ino)
	if err != nil {
		return err
	}
	a = v.overlay(f.ino, a)
	if end <= a.Length {
		return nil
	}
	u, err := v.client.Usage(ctx)
	if err != nil {
		return err
	}
	if u.Space+v.buffered()+(end-a.Length) > v.format.Capacity {
		return meta.ErrNoSpace
	}
	return nil
}

// buffered is the number of bytes written here and not yet committed.
func (v *VFS) buffered() uint64 {
	return uint64(max(v.pendingBytes.Load(), 0))
}
