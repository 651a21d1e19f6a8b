package sql

import (
	"context"
	"fmt"
	"syscall"

	"cairn/meta"
)

// pgWriteCall calls cairn_write and reads its row.
const pgWriteCall = "SELECT r_errno, coalesce(r_count, 0), coalesce(r_ftype, 0), coalesce(r_mode, 0), " +
	"coalesce(r_uid, 0), coalesce(r_gid, 0), coalesce(r_rdev, 0), coalesce(r_nlink, 0), coalesce(r_length, 0), " +
	"coalesce(r_atime, 0), coalesce(r_mtime, 0), coalesce(r_ctime, 0), coalesce(r_parent, 0) " +
	"FROM cairn_write(?, ?, ?, ?, ?, ?, ?, ?)"

// pgFunctions are PL/pgSQL functions Init installs on PostgreSQL: Write as
// one statement in autocommit mode, which the server runs as one
// transaction (the namespace operations are in pgroutines.go).
var pgFunctions = []string{`
CREATE OR REPLACE FUNCTION cairn_write(p_ino bigint, p_idx bigint, p_rec bytea, p_end bigint,
	p_id bigint, p_size bigint, p_mtime bigint, p_capacity bigint)
RETURNS TABLE (r_errno int, r_count bigint, r_ftype bigint, r_mode bigint, r_uid bigint, r_gid bigint,
	r_rdev bigint, r_nlink bigint, r_length bigint, r_atime bigint, r_mtime bigint, r_ctime bigint, r_parent bigint)
LANGUAGE plpgsql AS $$
DECLARE
	n cairn_node%ROWTYPE;
	new_len bigint;
	delta bigint;
	used bigint;
BEGIN
	SELECT * INTO n FROM cairn_node WHERE cairn_node.ino = p_ino FOR UPDATE;
	IF NOT FOUND THEN r_errno := 2; RETURN NEXT; RETURN; END IF;           -- ENOENT
	IF n.ftype = 2 THEN r_errno := 21; RETURN NEXT; RETURN; END IF;       -- EISDIR
	IF n.ftype <> 1 THEN r_errno := 22; RETURN NEXT; RETURN; END IF;      -- EINVAL
	new_len := greatest(n.length, p_end);
	delta := (new_len + 4095) / 4096 * 4096 - (n.length + 4095) / 4096 * 4096;
	IF p_capacity > 0 AND delta > 0 THEN
		SELECT space INTO used FROM cairn_usage WHERE id = 1;
		IF used + delta > p_capacity THEN r_errno := 28; RETURN NEXT; RETURN; END IF; -- ENOSPC
	END IF;
	INSERT INTO cairn_chunk AS c (ino, idx, slices) VALUES (p_ino, p_idx, p_rec)
		ON CONFLICT (ino, idx) DO UPDATE SET slices = c.slices || excluded.slices
		RETURNING octet_length(c.slices) / 24 INTO r_count;
	IF p_id <> 0 THEN
		INSERT INTO cairn_sliceref AS r (id, size, refs) VALUES (p_id, p_size, 1)
			ON CONFLICT (id) DO UPDATE SET refs = r.refs + 1;
	END IF;
	UPDATE cairn_node SET length = new_len, mtime = p_mtime, ctime = p_mtime WHERE cairn_node.ino = p_ino;
	IF delta <> 0 THEN
		UPDATE cairn_usage SET space = space + delta WHERE id = 1;
	END IF;
	r_errno := 0;
	r_ftype := n.ftype; r_mode := n.mode; r_uid := n.uid; r_gid := n.gid; r_rdev := n.rdev;
	r_nlink := n.nlink; r_length := new_len; r_atime := n.atime; r_mtime := p_mtime; r_ctime := p_mtime;
	r_parent := n.parent;
	RETURN NEXT;
END
$$`}

// writeServerSide is Write as one call of cairn_write.
func (e *Engine) writeServerSide(ctx context.Context, ino meta.Ino, idx uint32, s meta.Slice, mtime int64) (meta.Attr, int, error) {
	end := uint64(idx)*meta.ChunkSize + uint64(s.Pos) + uint64(s.Len)
	if end > maxLength {
		return meta.Attr{}, 0, meta.ErrTooBig
	}
	var a meta.Attr
	var count int64
	// One statement (writeCall) that is not safe to run twice: retried on conflicts,
	// not when the connection breaks under it.
	err := e.retry(ctx, func() (bool, error) {
		var errno int64
		c := &conn{ctx: ctx, e: e, q: e.db}
		row := c.queryRow(e.d.writeCall, int64(ino), int64(idx), appendSlice(nil, s), int64(end), int64(s.ID), int64(s.Size), mtime, e.capacity())
		if err := scanAttr(row, &a, &errno, &count); err != nil {
			if e.d.unknownOutcome(err) {
				return true, fmt.Errorf("%w: the connection broke during the write, it may or may not have happened: %v", meta.ErrIO, err)
			}
			return false, err
		}
		if errno != 0 {
			return true, syscall.Errno(errno)
		}
		return true, nil
	})
	if err != nil {
		return meta.Attr{}, 0, err
	}
	return a, int(count), nil
}
