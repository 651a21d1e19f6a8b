package vfs

import (
	"context"
	"errors"
	"fmt"

	"cairn/meta"
)

// read fills p from offset off of f and returns how many bytes the file
// has there (fewer than len(p) at its end).
func (v *VFS) read(ctx context.Context, f *file, p []byte, off uint64) (int, error) {
	f.mu.Lock()
	mustFlush := f.overlaps(off, uint64(len(p)))
	f.mu.Unlock()
	if mustFlush {
		if err := v.flush(ctx, f); err != nil {
			return 0, err
		}
	}
	a, err := v.client.GetAttr(ctx, f.ino)
	if err != nil {
		return 0, goneWhileOpen(f.ino, err)
	}
	a = v.overlay(f.ino, a)
	if off >= a.Length {
		return 0, nil
	}
	if rest := a.Length - off; uint64(len(p)) > rest {
		p = p[:rest]
	}
	done := 0
	for done < len(p) {
		pos := off + uint64(done)
		idx := uint32(pos / meta.ChunkSize)
		inChunk := uint32(pos % meta.ChunkSize)
		n := min(len(p)-done, int(meta.ChunkSize-inChunk))
		view, err := v.view(ctx, f, idx)
		if err != nil {
			return done, err
		}
		if err := v.readChunk(ctx, view, p[done:done+n], inChunk); err != nil {
			return done, fmt.Errorf("read chunk %d of inode %d: %w", idx, f.ino, err)
		}
		done += n
	}
	v.prefetchNextChunk(ctx, f, off, uint64(done), a.Length)
	return done, nil
}

// prefetchNextChunk starts downloading the first blocks of the next chunk
// when a sequential reader nears the end of one. The block store reads
// ahead within a slice, and a chunk's slices end with the chunk: without
// this, a reader of a big file would wait for a whole download at every
// 64 MiB.
func (v *VFS) prefetchNextChunk(ctx context.Context, f *file, off, n, length uint64) {
	f.mu.Lock()
	prev := f.readNext
	f.readNext = off + n
	f.mu.Unlock()
	if n == 0 || off > prev+nearSequential || off+nearSequential < prev {
		return // not where the last read ended: not a sequential reader
	}
	end := off + n
	next := (end-1)/meta.ChunkSize + 1
	ahead := uint64(prefetchBlocks) * uint64(v.blockSize())
	if end+ahead < next*meta.ChunkSize || next*meta.ChunkSize >= length {
		return // not near the end of a chunk, or the file ends there
	}
	if end+ahead-n >= next*meta.ChunkSize {
		return // the previous read already started it
	}
	view, err := v.view(ctx, f, uint32(next))
	if err != nil {
		return // the read that needs it will report the error
	}
	want := uint32(min(ahead, length-next*meta.ChunkSize))
	for _, s := range view {
		lo, hi := s.Pos, min(s.Pos+s.Len, want)
		if s.ID == 0 || lo >= hi {
			continue
		}
		v.store.Prefetch(s.ID, s.Size, s.Off, hi-lo)
	}
}

const (
	// nearSequential is how far from where the last read ended a read
	// may start and still be taken as sequential (one FUSE request; the
	// kernel may deliver a reader's requests slightly out of order).
	nearSequential = 1 << 20
	// prefetchBlocks is how many blocks of the next chunk are started.
	prefetchBlocks = 4
)

// view returns the visible slices of chunk idx of f, cached until this
// client changes the chunk or the file is opened again.
func (v *VFS) view(ctx context.Context, f *file, idx uint32) ([]meta.Slice, error) {
	f.mu.Lock()
	vs, ok := f.views[idx]
	gen := f.gen
	f.mu.Unlock()
	if ok {
		return vs, nil
	}
	list, err := v.client.Read(ctx, f.ino, idx)
	if err != nil {
		return nil, fmt.Errorf("slices of chunk %d: %w", idx, goneWhileOpen(f.ino, err))
	}
	if len(list) == 0 {
		// A hole, or the file is gone: another client unlinked it and freed
		// its data while it was open here. Never read that as zeros.
		if _, err := v.client.GetAttrFresh(ctx, f.ino); errors.Is(err, meta.ErrNotFound) {
			return nil, goneWhileOpen(f.ino, err)
		}
	}
	vs = meta.View(list)
	f.mu.Lock()
	if f.gen == gen {
		f.views[idx] = vs
	}
	f.mu.Unlock()
	return vs, nil
}

// readChunk fills p with the bytes at position pos of a chunk whose
// visible slices are view; gaps and holes read as zeros.
func (v *VFS) readChunk(ctx context.Context, view []meta.Slice, p []byte, pos uint32) error {
	clear(p)
	end := pos + uint32(len(p))
	for _, s := range view {
		lo, hi := max(s.Pos, pos), min(s.Pos+s.Len, end)
		if lo >= hi || s.ID == 0 {
			continue
		}
		dst := p[lo-pos : hi-pos]
		n, err := v.store.ReadAt(ctx, s.ID, s.Size, dst, s.Off+(lo-s.Pos))
		if err != nil {
			return fmt.Errorf("slice %d: %w", s.ID, err)
		}
		if n != len(dst) {
			return fmt.Errorf("slice %d: short read of %d bytes, want %d: %w", s.ID, n, len(dst), meta.ErrIO)
		}
	}
	return nil
}

// goneWhileOpen turns "no such inode" for a file open here into ESTALE:
// another client unlinked it and freed its data (cairn keeps an unlinked
// file only for the session that unlinked it), and read(2) must not say
// ENOENT, nor read zeros.
func goneWhileOpen(ino meta.Ino, err error) error {
	if errors.Is(err, meta.ErrNotFound) {
		return fmt.Errorf("inode %d was deleted by another client while open here: %w", ino, meta.ErrStale)
	}
	return err
}
