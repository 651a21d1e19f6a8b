package kv

import (
	"context"
	"errors"
	"fmt"

	"cairn/meta"
)

// maxLength is the largest file length: chunk indexes stay within 31 bits.
const maxLength = uint64(meta.ChunkSize) << 31

func (e *Engine) Read(ctx context.Context, ino meta.Ino, idx uint32) ([]meta.Slice, error) {
	var list []meta.Slice
	err := e.txn(ctx, func(t *txn) error {
		if err := t.prefetch(t.k.attr(ino), t.k.chunk(ino, idx)); err != nil {
			return err
		}
		if _, err := t.attr(ino); err != nil {
			return err
		}
		var err error
		list, err = t.chunk(ino, idx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read chunk %d of inode %d: %w", idx, ino, err)
	}
	return list, nil
}

// chunk reads the slice list of chunk idx of ino.
func (t *txn) chunk(ino meta.Ino, idx uint32) ([]meta.Slice, error) {
	v, err := t.get(t.k.chunk(ino, idx))
	if err != nil {
		return nil, err
	}
	return meta.DecodeSliceRecords(v)
}

// file reads a regular file's attributes: EISDIR for a directory, EINVAL
// for anything else that is not a regular file.
func (t *txn) file(ino meta.Ino) (meta.Attr, error) {
	a, err := t.attr(ino)
	if err != nil {
		return a, err
	}
	switch a.Type {
	case meta.TypeFile:
		return a, nil
	case meta.TypeDirectory:
		return a, meta.ErrIsDir
	default:
		return a, meta.ErrInvalid
	}
}

// setLength changes a file's length and charges the difference to Usage,
// failing with ErrNoSpace past the volume's capacity.
func (t *txn) setLength(ino meta.Ino, a *meta.Attr, length uint64) error {
	before := spaceOf(a)
	a.Length = length
	delta := spaceOf(a) - before
	if err := t.checkSpace(delta, 0); err != nil {
		return err
	}
	t.addUsage(ino, delta, 0)
	return nil
}

func (e *Engine) Write(ctx context.Context, ino meta.Ino, idx uint32, s meta.Slice, mtime int64) (meta.Attr, int, error) {
	if uint64(s.Pos)+uint64(s.Len) > meta.ChunkSize || uint64(idx) >= maxLength/meta.ChunkSize {
		return meta.Attr{}, 0, fmt.Errorf("write chunk %d of inode %d: slice %+v out of range: %w", idx, ino, s, meta.ErrInvalid)
	}
	var a meta.Attr
	var n int
	err := e.txn(ctx, func(t *txn) (err error) {
		if err := t.prefetch(t.k.attr(ino), t.k.chunk(ino, idx), t.usageKey(ino), t.k.ref(s.ID)); err != nil {
			return err
		}
		if a, err = t.file(ino); err != nil {
			return err
		}
		v, err := t.get(t.k.chunk(ino, idx))
		if err != nil {
			return err
		}
		if len(v)%meta.SliceRecordSize != 0 {
			return fmt.Errorf("corrupt slice list: %d bytes", len(v))
		}
		n = len(v)/meta.SliceRecordSize + 1
		end := uint64(idx)*meta.ChunkSize + uint64(s.Pos) + uint64(s.Len)
		if end > a.Length {
			if err := t.setLength(ino, &a, end); err != nil {
				return err
			}
		}
		a.Mtime, a.Ctime = mtime, mtime
		t.setAttr(ino, &a)
		t.put(t.k.chunk(ino, idx), meta.AppendSliceRecord(append([]byte{}, v...), s))
		return t.changeRefs([]meta.Slice{s}, nil)
	})
	if err != nil {
		return a, 0, fmt.Errorf("write chunk %d of inode %d: %w", idx, ino, err)
	}
	return a, n, nil
}

func (e *Engine) Compact(ctx context.Context, ino meta.Ino, idx uint32, old []meta.Slice, s meta.Slice) error {
	err := e.txn(ctx, func(t *txn) error {
		list, err := t.chunk(ino, idx)
		if err != nil {
			return err
		}
		if list, err = meta.CompactList(list, old, s); err != nil {
			return err
		}
		t.put(t.k.chunk(ino, idx), meta.EncodeSliceRecords(list))
		return t.changeRefs([]meta.Slice{s}, old)
	})
	if err != nil {
		return fmt.Errorf("compact chunk %d of inode %d: %w", idx, ino, err)
	}
	return nil
}

// dropChunkKeys deletes the chunks in kvs and drops their slices'
// references, stopping once about budget records went (trimming the head
// of a list longer than that), so that one step of ReleaseOrphan stays
// within the store's transaction limits.
func (t *txn) dropChunkKeys(kvs []KeyValue, budget int) error {
	var gone []meta.Slice
	for _, kv := range kvs {
		list, err := meta.DecodeSliceRecords(kv.Value)
		if err != nil {
			return err
		}
		if budget > 0 && len(gone) > 0 && len(gone)+len(list) > budget {
			break
		}
		if budget > 0 && len(list) > budget {
			gone = append(gone, list[:budget]...)
			t.put(kv.Key, meta.EncodeSliceRecords(list[budget:]))
			break
		}
		gone = append(gone, list...)
		t.del(kv.Key)
	}
	return t.changeRefs(nil, gone)
}

// punch appends a hole record over [off, end) of the file to each chunk
// that holds data there; chunks without a list read as zeros already.
func (t *txn) punch(ino meta.Ino, off, end uint64) error {
	if off >= end {
		return nil
	}
	first, last := uint32(off/meta.ChunkSize), uint32((end-1)/meta.ChunkSize)
	_, rangeEnd := t.k.subRange(ino, subChunk)
	if last+1 != 0 {
		rangeEnd = t.k.chunk(ino, last+1)
	}
	kvs, err := t.scanAll(t.k.chunk(ino, first), rangeEnd, 256)
	if err != nil {
		return err
	}
	for _, kv := range kvs {
		idx := be.Uint32(kv.Key[len(kv.Key)-4:])
		start := uint64(idx) * meta.ChunkSize
		lo, hi := max(off, start), min(end, start+meta.ChunkSize)
		hole := meta.Slice{Pos: uint32(lo - start), Len: uint32(hi - lo)}
		t.put(kv.Key, meta.AppendSliceRecord(append([]byte{}, kv.Value...), hole))
	}
	return nil
}

func (e *Engine) Truncate(ctx context.Context, cred meta.Cred, ino meta.Ino, length uint64) (meta.Attr, error) {
	var a meta.Attr
	err := e.txn(ctx, func(t *txn) (err error) {
		if err := t.prefetch(t.k.attr(ino), t.usageKey(ino)); err != nil {
			return err
		}
		if a, err = t.file(ino); err != nil {
			return err
		}
		if err := meta.Access(&a, cred, meta.MayWrite); err != nil {
			return err
		}
		if length < a.Length {
			// Chunks wholly past the end go; the one the end falls in gets
			// a hole over what was cut, so that growing again reads zeros.
			keep := (length + meta.ChunkSize - 1) / meta.ChunkSize
			if err := t.cutChunks(ino, uint32(keep)); err != nil {
				return err
			}
			if err := t.punch(ino, length, min(a.Length, keep*meta.ChunkSize)); err != nil {
				return err
			}
		}
		if err := t.setLength(ino, &a, length); err != nil {
			return err
		}
		ts := now()
		a.Mtime, a.Ctime = ts, ts
		t.setAttr(ino, &a)
		return nil
	})
	if err != nil {
		return a, fmt.Errorf("truncate inode %d to %d: %w", ino, length, err)
	}
	return a, nil
}

func (e *Engine) Fallocate(ctx context.Context, cred meta.Cred, ino meta.Ino, mode uint8, off, size uint64) (meta.Attr, error) {
	var a meta.Attr
	err := e.txn(ctx, func(t *txn) (err error) {
		if err := t.prefetch(t.k.attr(ino), t.usageKey(ino)); err != nil {
			return err
		}
		if a, err = t.file(ino); errors.Is(err, meta.ErrInvalid) {
			return meta.ErrNoDevice // fallocate(2) of a special file
		} else if err != nil {
			return err
		}
		if err := meta.Access(&a, cred, meta.MayWrite); err != nil {
			return err
		}
		end := off + size
		if mode&(meta.FallocPunchHole|meta.FallocZeroRange) != 0 {
			if err := t.punch(ino, off, min(end, a.Length)); err != nil {
				return err
			}
		}
		if mode&meta.FallocKeepSize == 0 && end > a.Length {
			if err := t.setLength(ino, &a, end); err != nil {
				return err
			}
		}
		ts := now()
		a.Mtime, a.Ctime = ts, ts
		t.setAttr(ino, &a)
		return nil
	})
	if err != nil {
		return a, fmt.Errorf("fallocate inode %d mode %#x at %d+%d: %w", ino, mode, off, size, err)
	}
	return a, nil
}

func (e *Engine) DeadSlices(ctx context.Context, limit int) ([]meta.DeadSlice, error) {
	if err := e.drainReleases(ctx); err != nil {
		return nil, fmt.Errorf("list dead slices: %w", err)
	}
	var out []meta.DeadSlice
	err := e.txn(ctx, func(t *txn) error {
		out = nil
		b, end := t.k.deadRange()
		kvs, err := t.Scan(b, end, limit)
		if err != nil {
			return err
		}
		for _, kv := range kvs {
			if len(kv.Value) != 4 {
				return fmt.Errorf("corrupt dead slice record: %d bytes", len(kv.Value))
			}
			out = append(out, meta.DeadSlice{ID: be.Uint64(t.k.suffix(kv.Key, 0)), Size: be.Uint32(kv.Value)})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list dead slices: %w", err)
	}
	return out, nil
}

// forgetBatch bounds the deletions in one transaction (etcd allows 128
// operations per request).
const forgetBatch = 100

func (e *Engine) ForgetSlices(ctx context.Context, ids []uint64) error {
	for len(ids) > 0 {
		batch := ids[:min(len(ids), forgetBatch)]
		ids = ids[len(batch):]
		err := e.txn(ctx, func(t *txn) error {
			for _, id := range batch {
				t.del(t.k.dead(id))
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("forget dead slices: %w", err)
		}
	}
	return nil
}
