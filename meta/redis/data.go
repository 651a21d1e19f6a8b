package redis

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"cairn/meta"
)

// Read returns a chunk's slice list: one LRANGE.
func (e *Engine) Read(ctx context.Context, ino meta.Ino, idx uint32) ([]meta.Slice, error) {
	recs, err := e.rdb.LRange(ctx, e.chunkKey(ino, idx), 0, -1).Result()
	if err != nil {
		return nil, e.fail("read chunk", err)
	}
	out := make([]meta.Slice, len(recs))
	for i, r := range recs {
		if out[i], err = meta.DecodeSliceRecord([]byte(r)); err != nil {
			return nil, fmt.Errorf("chunk %d of inode %d: %w", idx, ino, err)
		}
	}
	return out, nil
}

func (e *Engine) chunkKey(ino meta.Ino, idx uint32) string {
	return string(appendChunkKey(make([]byte, 0, len(e.prefix)+34), e.prefix, ino, idx))
}

// appendChunkKey appends the name of chunk idx of ino's slice list.
func appendChunkKey(b []byte, prefix string, ino meta.Ino, idx uint32) []byte {
	return strconv.AppendUint(append(appendKey(b, prefix, "c", uint64(ino)), ':'), uint64(idx), 10)
}

// Write appends a slice record and extends the file, see meta.Engine.
func (e *Engine) Write(ctx context.Context, ino meta.Ino, idx uint32, s meta.Slice, mtime int64) (meta.Attr, int, error) {
	if uint64(s.Pos)+uint64(s.Len) > meta.ChunkSize || s.Off > s.Size || uint64(s.Off)+uint64(s.Len) > uint64(s.Size) {
		return meta.Attr{}, 0, fmt.Errorf("slice %+v does not fit its chunk or data: %w", s, meta.ErrInvalid)
	}
	ms, mn := meta.SplitTime(mtime)
	r, err := e.call(ctx, "write", meta.RootCred, uint64(ino), idx, meta.AppendSliceRecord(nil, s), ms, mn)
	if err != nil {
		return meta.Attr{}, 0, err
	}
	list, err := resultList(r, 2)
	if err != nil {
		return meta.Attr{}, 0, err
	}
	a, err := resultAttr(list[0])
	if err != nil {
		return meta.Attr{}, 0, err
	}
	n, err := resultInt(list[1])
	return a, int(n), err
}

// Compact replaces the first records of a chunk by one, see meta.Engine.
func (e *Engine) Compact(ctx context.Context, ino meta.Ino, idx uint32, old []meta.Slice, s meta.Slice) error {
	if len(old) == 0 {
		return meta.ErrInvalid
	}
	packed := make([]byte, 0, len(old)*meta.SliceRecordSize)
	for _, o := range old {
		packed = append(packed, meta.AppendSliceRecord(nil, o)...)
	}
	_, err := e.call(ctx, "compact", meta.RootCred, uint64(ino), idx, packed, meta.AppendSliceRecord(nil, s))
	return err
}

// DeadSlices lists slices no file references, see meta.Engine.
func (e *Engine) DeadSlices(ctx context.Context, limit int) ([]meta.DeadSlice, error) {
	if limit <= 0 {
		return nil, nil
	}
	members, err := e.rdb.ZRange(ctx, e.prefix+":dead", 0, int64(limit)-1).Result()
	if err != nil {
		return nil, e.fail("list dead slices", err)
	}
	out := make([]meta.DeadSlice, 0, len(members))
	for _, m := range members {
		id, size, _ := strings.Cut(m, ":")
		i, err1 := strconv.ParseUint(id, 10, 64)
		n, err2 := strconv.ParseUint(size, 10, 32)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("corrupt dead slice %q: %w", m, meta.ErrIO)
		}
		out = append(out, meta.DeadSlice{ID: i, Size: uint32(n)})
	}
	return out, nil
}

// ForgetSlices drops slices from the dead queue, see meta.Engine.
func (e *Engine) ForgetSlices(ctx context.Context, ids []uint64) error {
	for len(ids) > 0 {
		n := min(len(ids), 1000)
		args := make([]any, n)
		for i, id := range ids[:n] {
			args[i] = id
		}
		if _, err := e.call(ctx, "forget", meta.RootCred, args...); err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}

// ReleaseOrphan deletes an orphan of session sid, see meta.Engine.
func (e *Engine) ReleaseOrphan(ctx context.Context, sid uint64, ino meta.Ino) error {
	_, err := e.call(ctx, "release", meta.RootCred, sid, uint64(ino))
	return err
}
