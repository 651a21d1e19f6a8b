package vfs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"cairn/meta"
)

type compactKey struct {
	ino meta.Ino
	idx uint32
}

// startCompact merges chunk idx of ino in the background unless that is
// already under way.
func (v *VFS) startCompact(ino meta.Ino, idx uint32) {
	k := compactKey{ino, idx}
	v.mu.Lock()
	if v.compacting[k] || v.closed {
		v.mu.Unlock()
		return
	}
	v.compacting[k] = true
	v.bg.Add(1)
	v.mu.Unlock()
	go func() {
		defer v.bg.Done()
		defer func() {
			v.mu.Lock()
			delete(v.compacting, k)
			v.mu.Unlock()
		}()
		if err := v.Compact(context.Background(), ino, idx); err != nil && !errors.Is(err, meta.ErrConflict) && !errors.Is(err, meta.ErrNotFound) {
			slog.Warn("compact chunk", "inode", ino, "chunk", idx, "err", err)
		}
	}()
}

// Compact rewrites what chunk idx of ino shows as one new slice and
// replaces the chunk's slice list by it; the old slices become dead.
// ErrConflict when the list changed meanwhile (nothing is lost: the new
// slice's blocks are removed and the old list stays).
func (v *VFS) Compact(ctx context.Context, ino meta.Ino, idx uint32) error {
	list, err := v.client.Read(ctx, ino, idx)
	if err != nil {
		return err
	}
	if len(list) < 2 {
		return nil
	}
	view := meta.View(list)
	lo, hi := uint32(0), uint32(0)
	found := false
	for _, s := range view {
		if s.ID == 0 {
			continue
		}
		if !found {
			lo, found = s.Pos, true
		}
		hi = s.Pos + s.Len
	}
	if !found {
		return nil
	}
	id, err := v.client.NewSliceID(ctx)
	if err != nil {
		return err
	}
	w := v.store.NewWriter(id)
	buf := make([]byte, 1<<20)
	for pos := lo; pos < hi; {
		n := min(uint32(len(buf)), hi-pos)
		if err := v.readChunk(ctx, view, buf[:n], pos); err != nil {
			w.Abort()
			return fmt.Errorf("read for compaction: %w", err)
		}
		if _, err := w.WriteAt(buf[:n], pos-lo); err != nil {
			w.Abort()
			return err
		}
		pos += n
		if err := w.FlushTo(pos - lo); err != nil {
			w.Abort()
			return err
		}
	}
	if err := w.Finish(ctx, hi-lo); err != nil {
		w.Abort()
		return fmt.Errorf("upload compacted slice: %w", err)
	}
	s := meta.Slice{Pos: lo, ID: id, Size: hi - lo, Len: hi - lo}
	if err := v.client.Compact(ctx, ino, idx, list, s); err != nil {
		if rerr := v.store.Remove(ctx, id, s.Size); rerr != nil {
			slog.Warn("remove unused compacted slice", "slice", id, "err", rerr)
		}
		return err
	}
	if f := v.lookupFile(ino); f != nil {
		f.mu.Lock()
		f.invalidate(int64(idx))
		f.mu.Unlock()
	}
	v.kickGC()
	return nil
}
