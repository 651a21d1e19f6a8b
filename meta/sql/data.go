package sql

import (
	"context"

	"cairn/meta"
)

// maxLength is the largest file: 2^32 chunks.
const maxLength = uint64(1<<32) * meta.ChunkSize

// Read returns a chunk's slice list, oldest first.
func (e *Engine) Read(ctx context.Context, ino meta.Ino, idx uint32) ([]meta.Slice, error) {
	var list []meta.Slice
	err := e.read(ctx, func(c *conn) (err error) {
		list, err = c.chunk(ino, idx)
		return err
	})
	return list, err
}

func (c *conn) chunk(ino meta.Ino, idx uint32) ([]meta.Slice, error) {
	var list []meta.Slice
	err := scanChunk(c.queryRow(chunkQuery, int64(ino), int64(idx)), &list)
	return list, err
}

// chunkQuery reads one chunk's slice list: ino, idx.
const chunkQuery = "SELECT slices FROM cairn_chunk WHERE ino = ? AND idx = ?"

// scanChunk decodes chunkQuery's row; no row is an empty list.
func scanChunk(sc scanner, list *[]meta.Slice) error {
	var b []byte
	err := sc.Scan(&b)
	if isNoRows(err) {
		*list = nil
		return nil
	}
	if err != nil {
		return err
	}
	*list, err = meta.DecodeSliceRecords(b)
	return err
}

// putChunk stores a chunk's whole list.
func (c *conn) putChunk(ino meta.Ino, idx uint32, list []meta.Slice) error {
	_, err := c.exec(c.e.d.upsert("cairn_chunk", []string{"ino", "idx", "slices"}, 2), int64(ino), int64(idx), meta.EncodeSliceRecords(list))
	return err
}

// lockFile locks a regular file for a change of its data.
func (c *conn) lockFile(ino meta.Ino) (meta.Attr, error) {
	a, err := c.getNode(ino, true)
	if err != nil {
		return a, err
	}
	return a, fileOnly(&a)
}

// lockFileChunk locks a regular file and then reads chunk idx's slice
// list (one round trip on MySQL, see readPair).
func (c *conn) lockFileChunk(ino meta.Ino, idx uint32) (a meta.Attr, list []meta.Slice, err error) {
	err = c.readPair(c.nodeQuery(true), []any{int64(ino)}, func(sc scanner) error {
		if err := scanNode(sc, &a); err != nil {
			return err
		}
		return fileOnly(&a)
	}, chunkQuery, []any{int64(ino), int64(idx)}, func(sc scanner) error {
		return scanChunk(sc, &list)
	})
	return a, list, err
}

// fileOnly refuses what is not a regular file.
func fileOnly(a *meta.Attr) error {
	if a.IsDir() {
		return meta.ErrIsDir
	}
	if a.Type != meta.TypeFile {
		return meta.ErrInvalid
	}
	return nil
}

// setLength stores a file's new length and times and accounts the change
// of space.
func (c *conn) setLength(ino meta.Ino, a *meta.Attr, length uint64) error {
	old := spaceOf(a)
	a.Length = length
	if _, err := c.exec("UPDATE cairn_node SET length = ?, mtime = ?, ctime = ? WHERE ino = ?",
		int64(length), a.Mtime, a.Ctime, int64(ino)); err != nil {
		return err
	}
	return c.addUsage(spaceOf(a)-old, 0)
}

// growthAllowed checks the capacity before a file grows to length.
func (c *conn) growthAllowed(a *meta.Attr, length uint64) error {
	if length > maxLength {
		return meta.ErrTooBig
	}
	if length <= a.Length {
		return nil
	}
	grown := *a
	grown.Length = length
	return c.checkLimits(spaceOf(&grown)-spaceOf(a), 0)
}

// Write appends a slice to a chunk's list.
func (e *Engine) Write(ctx context.Context, ino meta.Ino, idx uint32, s meta.Slice, mtime int64) (meta.Attr, int, error) {
	if uint64(s.Pos)+uint64(s.Len) > meta.ChunkSize || s.Off+s.Len < s.Off {
		return meta.Attr{}, 0, meta.ErrInvalid
	}
	if e.d.routines {
		a, n, err := e.writeRoutine(ctx, ino, idx, s, mtime)
		if err != errMissingRoutine {
			return a, n, err
		}
	}
	var a meta.Attr
	var n int
	err := e.txn(ctx, func(c *conn) error {
		// The chunk is read after the lock, by a statement of its own
		// (see lockDirEntry).
		var list []meta.Slice
		var err error
		if a, list, err = c.lockFileChunk(ino, idx); err != nil {
			return err
		}
		length := max(a.Length, uint64(idx)*meta.ChunkSize+uint64(s.Pos)+uint64(s.Len))
		if err := c.growthAllowed(&a, length); err != nil {
			return err
		}
		list = append(list, s)
		n = len(list)
		if err := c.putChunk(ino, idx, list); err != nil {
			return err
		}
		if err := c.addRef(s); err != nil {
			return err
		}
		a.Mtime, a.Ctime = mtime, mtime
		return c.setLength(ino, &a, length)
	})
	return a, n, err
}

// dropChunks deletes a file's chunks from index from on, releasing their
// slices.
func (c *conn) dropChunks(ino meta.Ino, from uint32) error {
	all, err := c.sliceRecords("SELECT slices FROM cairn_chunk WHERE ino = ? AND idx >= ?", int64(ino), int64(from))
	if err != nil {
		return err
	}
	if len(all) == 0 {
		return nil
	}
	if _, err := c.exec("DELETE FROM cairn_chunk WHERE ino = ? AND idx >= ?", int64(ino), int64(from)); err != nil {
		return err
	}
	return c.dropRefs(all)
}

// hideRange appends holes over [off, end) to the chunks that exist there,
// so that the bytes read as zeros.
func (c *conn) hideRange(ino meta.Ino, off, end uint64) error {
	if off >= end {
		return nil
	}
	first, last := off/meta.ChunkSize, (end-1)/meta.ChunkSize
	rows, err := c.query("SELECT idx, slices FROM cairn_chunk WHERE ino = ? AND idx >= ? AND idx <= ?",
		int64(ino), int64(first), int64(last))
	if err != nil {
		return err
	}
	lists := map[uint32][]meta.Slice{}
	for rows.Next() {
		var idx int64
		var b []byte
		if err := rows.Scan(&idx, &b); err != nil {
			rows.Close()
			return err
		}
		list, err := meta.DecodeSliceRecords(b)
		if err != nil {
			rows.Close()
			return err
		}
		lists[uint32(idx)] = list
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for idx, list := range lists {
		base := uint64(idx) * meta.ChunkSize
		lo, hi := max(off, base)-base, min(end, base+meta.ChunkSize)-base
		hole := meta.Slice{Pos: uint32(lo), Size: uint32(hi - lo), Len: uint32(hi - lo)}
		if err := c.putChunk(ino, idx, append(list, hole)); err != nil {
			return err
		}
	}
	return nil
}

// Truncate sets a regular file's length.
func (e *Engine) Truncate(ctx context.Context, cred meta.Cred, ino meta.Ino, length uint64) (meta.Attr, error) {
	if e.d.routines {
		a, err := e.truncateRoutine(ctx, cred, ino, length)
		if err != errMissingRoutine {
			return a, err
		}
	}
	var a meta.Attr
	err := e.txn(ctx, func(c *conn) error {
		now := nowNs()
		var err error
		if a, err = c.lockFile(ino); err != nil {
			return err
		}
		if err := meta.Access(&a, cred, meta.MayWrite); err != nil {
			return err
		}
		if err := c.growthAllowed(&a, length); err != nil {
			return err
		}
		if length < a.Length {
			if err := c.dropChunks(ino, uint32((length+meta.ChunkSize-1)/meta.ChunkSize)); err != nil {
				return err
			}
			if err := c.hideRange(ino, length, min(a.Length, (length/meta.ChunkSize+1)*meta.ChunkSize)); err != nil {
				return err
			}
		}
		a.Mtime, a.Ctime = now, now
		return c.setLength(ino, &a, length)
	})
	return a, err
}

// Fallocate preallocates (only the length changes: blocks are not
// reserved in an object store), punches holes or zeroes ranges.
func (e *Engine) Fallocate(ctx context.Context, cred meta.Cred, ino meta.Ino, mode uint8, off, size uint64) (meta.Attr, error) {
	keep := mode&meta.FallocKeepSize != 0
	punch := mode&meta.FallocPunchHole != 0
	zero := mode&meta.FallocZeroRange != 0
	end := off + size
	if e.d.routines {
		a, err := e.fallocateRoutine(ctx, cred, ino, mode, off, end)
		if err != errMissingRoutine {
			return a, err
		}
	}
	var a meta.Attr
	err := e.txn(ctx, func(c *conn) error {
		now := nowNs()
		var err error
		if a, err = c.getNode(ino, true); err != nil {
			return err
		}
		if a.IsDir() {
			return meta.ErrIsDir
		}
		if a.Type != meta.TypeFile {
			return meta.ErrNoDevice
		}
		if err := meta.Access(&a, cred, meta.MayWrite); err != nil {
			return err
		}
		length := a.Length
		if !keep && end > length {
			length = end
		}
		if err := c.growthAllowed(&a, length); err != nil {
			return err
		}
		a.Ctime = now
		if punch || zero {
			if err := c.hideRange(ino, off, min(end, a.Length)); err != nil {
				return err
			}
			a.Mtime = now
		} else if length != a.Length {
			a.Mtime = now
		}
		return c.setLength(ino, &a, length)
	})
	return a, err
}

// Compact replaces the first records of a chunk's list by one.
func (e *Engine) Compact(ctx context.Context, ino meta.Ino, idx uint32, old []meta.Slice, s meta.Slice) error {
	return e.txn(ctx, func(c *conn) error {
		if _, err := c.getNode(ino, true); err != nil {
			return err
		}
		list, err := c.chunk(ino, idx)
		if err != nil {
			return err
		}
		if list, err = meta.CompactList(list, old, s); err != nil {
			return err
		}
		if err := c.putChunk(ino, idx, list); err != nil {
			return err
		}
		if err := c.addRef(s); err != nil {
			return err
		}
		return c.dropRefs(old)
	})
}

// DeadSlices lists slices whose blocks may be deleted.
func (e *Engine) DeadSlices(ctx context.Context, limit int) ([]meta.DeadSlice, error) {
	if limit <= 0 {
		return nil, nil
	}
	var out []meta.DeadSlice
	err := e.read(ctx, func(c *conn) error {
		out = out[:0]
		rows, err := c.query("SELECT id, size FROM cairn_dead ORDER BY id LIMIT ?", limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id, size int64
			if err := rows.Scan(&id, &size); err != nil {
				return err
			}
			out = append(out, meta.DeadSlice{ID: uint64(id), Size: uint32(size)})
		}
		return rows.Err()
	})
	return out, err
}

// ForgetSlices drops slices from the dead-slice queue.
func (e *Engine) ForgetSlices(ctx context.Context, ids []uint64) error {
	for len(ids) > 0 {
		n := min(len(ids), 500)
		batch := ids[:n]
		err := e.write(ctx, func(c *conn) error {
			_, err := c.exec("DELETE FROM cairn_dead WHERE id IN ("+marks(len(batch))+")", idArgs(batch)...)
			return err
		})
		if err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}
