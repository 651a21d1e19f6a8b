package sql

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"cairn/meta"
)

// pgWriteCall calls cairn_write and reads its row.
const pgWriteCall = "SELECT r_errno, coalesce(r_count, 0), coalesce(r_ftype, 0), coalesce(r_mode, 0), " +
	"coalesce(r_uid, 0), coalesce(r_gid, 0), coalesce(r_rdev, 0), coalesce(r_nlink, 0), coalesce(r_length, 0), " +
	"coalesce(r_atime, 0), coalesce(r_mtime, 0), coalesce(r_ctime, 0), coalesce(r_parent, 0) " +
	"FROM cairn_write(?, ?, ?, ?, ?, ?, ?, ?)"

// pgFunctions are PL/pgSQL functions Init installs on PostgreSQL, so that
// the hottest mutations cost one round trip: one statement in autocommit
// mode, which the server runs as one transaction.
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
$$`, `
CREATE OR REPLACE FUNCTION cairn_mknod(p_parent bigint, p_name bytea, p_ino bigint, p_ftype bigint, p_mode bigint,
	p_uid bigint, p_gid bigint, p_rdev bigint, p_nlink bigint, p_length bigint, p_now bigint, p_dotdot bigint,
	p_target bytea, p_expect_mode bigint, p_expect_uid bigint, p_expect_gid bigint, p_max_inodes bigint)
RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	p cairn_node%ROWTYPE;
	used bigint;
BEGIN
	SELECT * INTO p FROM cairn_node WHERE ino = p_parent FOR UPDATE;
	IF NOT FOUND THEN RETURN 2; END IF;                                   -- ENOENT
	IF p.ftype <> 2 THEN RETURN 20; END IF;                               -- ENOTDIR
	IF p.mode <> p_expect_mode OR p.uid <> p_expect_uid OR p.gid <> p_expect_gid THEN
		RETURN -1;                                                        -- checked against stale attributes
	END IF;
	PERFORM 1 FROM cairn_edge WHERE parent = p_parent AND name = p_name;
	IF FOUND THEN RETURN 17; END IF;                                      -- EEXIST
	IF p_max_inodes > 0 THEN
		SELECT inodes INTO used FROM cairn_usage WHERE id = 1;
		IF used + 1 > p_max_inodes THEN RETURN 28; END IF;                -- ENOSPC
	END IF;
	INSERT INTO cairn_node (ino, ftype, mode, uid, gid, rdev, nlink, length, atime, mtime, ctime, parent)
		VALUES (p_ino, p_ftype, p_mode, p_uid, p_gid, p_rdev, p_nlink, p_length, p_now, p_now, p_now, p_dotdot);
	INSERT INTO cairn_edge (parent, name, ino, ftype) VALUES (p_parent, p_name, p_ino, p_ftype);
	IF p_ftype = 3 THEN
		INSERT INTO cairn_symlink (ino, target) VALUES (p_ino, p_target);
	END IF;
	UPDATE cairn_node SET nlink = nlink + CASE WHEN p_ftype = 2 THEN 1 ELSE 0 END, mtime = p_now, ctime = p_now
		WHERE ino = p_parent;
	UPDATE cairn_usage SET inodes = inodes + 1 WHERE id = 1;
	RETURN 0;
END
$$`}

// errStale is an optimistic check made against attributes that changed
// before the write could lock them; the operation runs again.
var errStale = errors.New("attributes changed under the operation")

// guardedResult interprets a guarded server-side call: err from sending
// it (a broken connection during it leaves the outcome unknown, which
// doing says in words: "removing \"x\", it may or may not be gone"), and the
// errno it returned (negative: errStale, the operation runs again).
// unknown reports that the outcome is unknown and must not be retried.
func (e *Engine) guardedResult(err error, errno int64, doing string) (unknown bool, _ error) {
	if err != nil {
		if e.d.unknownOutcome(err) {
			return true, fmt.Errorf("%w: the connection broke while %s: %v", meta.ErrIO, doing, err)
		}
		return false, err
	}
	switch {
	case errno < 0:
		return false, errStale
	case errno > 0:
		return false, syscall.Errno(errno)
	}
	return false, nil
}

// mknodServerSide is Mknod in two round trips: one SELECT reads the parent
// (and whether the name is taken) so that the permission and ownership
// rules of meta (Access, InitAttr) decide in Go; one call of cairn_mknod
// then locks the parent, checks that the attributes those rules read are
// unchanged, and makes the inode. When they changed, it all runs again.
func (e *Engine) mknodServerSide(ctx context.Context, cred meta.Cred, parent meta.Ino, name string, ino meta.Ino, typ meta.FileType, mode uint16, rdev uint32, target string) (meta.Attr, error) {
	var maxInodes int64
	if f := e.limits.Load(); f != nil {
		maxInodes = int64(f.Inodes)
	}
	var a meta.Attr
	err := e.retry(ctx, func() (bool, error) {
		c := &conn{ctx: ctx, e: e, q: e.db}
		var p meta.Attr
		var taken bool
		err := scanAttr(c.queryRow("SELECT EXISTS (SELECT 1 FROM cairn_edge WHERE parent = ? AND name = ?), "+nodeCols+
			" FROM cairn_node WHERE ino = ?", int64(parent), nameArg(name), int64(parent)), &p, &taken)
		switch {
		case isNoRows(err):
			return false, meta.ErrNotFound
		case err != nil:
			return false, err
		case !p.IsDir():
			return false, meta.ErrNotDir
		}
		if err := meta.Access(&p, cred, meta.MayExec); err != nil {
			return false, err
		}
		if taken {
			return false, meta.ErrExists
		}
		if err := meta.Access(&p, cred, meta.MayWrite|meta.MayExec); err != nil {
			return false, err
		}
		now := nowNs()
		a = meta.InitAttr(&p, cred, typ, mode, rdev, now)
		switch typ {
		case meta.TypeDirectory:
			a.Parent = parent
		case meta.TypeSymlink:
			a.Length = uint64(len(target))
		}
		var errno int64
		err = c.queryRow("SELECT cairn_mknod(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			int64(parent), nameArg(name), int64(ino), int64(typ), int64(a.Mode), int64(a.Uid), int64(a.Gid),
			int64(a.Rdev), int64(a.Nlink), int64(a.Length), now, int64(a.Parent), []byte(target),
			int64(p.Mode), int64(p.Uid), int64(p.Gid), maxInodes).Scan(&errno)
		return e.guardedResult(err, errno, fmt.Sprintf("creating %q, it may or may not exist", name))
	})
	return a, err
}

// writeServerSide is Write as one call of cairn_write.
func (e *Engine) writeServerSide(ctx context.Context, ino meta.Ino, idx uint32, s meta.Slice, mtime int64) (meta.Attr, int, error) {
	var capacity int64
	if f := e.limits.Load(); f != nil {
		capacity = int64(f.Capacity)
	}
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
		row := c.queryRow(e.d.writeCall, int64(ino), int64(idx), appendSlice(nil, s), int64(end), int64(s.ID), int64(s.Size), mtime, capacity)
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
