package sql

import (
	"context"
	"fmt"
	"strings"

	"cairn/meta"
)

// pgUnlink makes Unlink two round trips on PostgreSQL, like Mknod: the
// rules (MayDelete) decide in Go on attributes read by one SELECT, and the
// function re-checks under lock that those attributes did not change.
const pgUnlink = `
CREATE OR REPLACE FUNCTION cairn_unlink(p_parent bigint, p_name bytea, p_child bigint,
	p_expect_mode bigint, p_expect_uid bigint, p_expect_gid bigint, p_child_uid bigint, p_child_type bigint,
	p_sid bigint, p_now bigint)
RETURNS TABLE (r_errno int, r_ftype bigint, r_mode bigint, r_uid bigint, r_gid bigint, r_rdev bigint,
	r_nlink bigint, r_length bigint, r_atime bigint, r_mtime bigint, r_ctime bigint, r_parent bigint)
LANGUAGE plpgsql AS $$
DECLARE
	p cairn_node%ROWTYPE;
	c cairn_node%ROWTYPE;
	target bigint;
BEGIN
	SELECT * INTO p FROM cairn_node WHERE ino = p_parent FOR UPDATE;
	r_errno := -1; -- checked against stale attributes: run again
	IF NOT FOUND OR p.ftype <> 2 OR p.mode <> p_expect_mode OR p.uid <> p_expect_uid OR p.gid <> p_expect_gid THEN
		RETURN NEXT; RETURN;
	END IF;
	SELECT ino INTO target FROM cairn_edge WHERE parent = p_parent AND name = p_name;
	IF NOT FOUND OR target <> p_child THEN RETURN NEXT; RETURN; END IF;
	SELECT * INTO c FROM cairn_node WHERE ino = p_child FOR UPDATE;
	IF NOT FOUND OR c.uid <> p_child_uid OR c.ftype <> p_child_type THEN RETURN NEXT; RETURN; END IF;
	DELETE FROM cairn_edge WHERE parent = p_parent AND name = p_name;
	UPDATE cairn_node SET nlink = nlink - 1, ctime = p_now WHERE ino = p_child;
	IF c.nlink = 1 THEN
		INSERT INTO cairn_orphan (ino, sid) VALUES (p_child, p_sid);
	END IF;
	UPDATE cairn_node SET mtime = p_now, ctime = p_now WHERE ino = p_parent;
	r_errno := 0;
	r_ftype := c.ftype; r_mode := c.mode; r_uid := c.uid; r_gid := c.gid; r_rdev := c.rdev;
	r_nlink := c.nlink - 1; r_length := c.length; r_atime := c.atime; r_mtime := c.mtime; r_ctime := p_now;
	r_parent := c.parent;
	RETURN NEXT;
END
$$`

// coalesced is nodeCols of alias t, with missing rows read as zeros.
func coalesced(t string) string {
	cols := strings.Split(nodeCols, ", ")
	for i, c := range cols {
		cols[i] = "coalesce(" + t + "." + c + ", 0)"
	}
	return strings.Join(cols, ", ")
}

func (e *Engine) unlinkServerSide(ctx context.Context, cred meta.Cred, parent meta.Ino, name string, sid uint64) (meta.Ino, meta.Attr, error) {
	var child int64
	var a meta.Attr
	err := e.retry(ctx, func() (bool, error) {
		c := &conn{ctx: ctx, e: e, q: e.db}
		var p meta.Attr
		pdest, pdone := attrDest(&p)
		cdest, cdone := attrDest(&a)
		err := c.queryRow("SELECT "+coalesced("p")+", coalesce(e.ino, 0), "+coalesced("c")+" FROM cairn_node p "+
			"LEFT JOIN cairn_edge e ON e.parent = p.ino AND e.name = ? LEFT JOIN cairn_node c ON c.ino = e.ino "+
			"WHERE p.ino = ?", nameArg(name), int64(parent)).Scan(append(append(pdest, &child), cdest...)...)
		switch {
		case isNoRows(err):
			return false, meta.ErrNotFound
		case err != nil:
			return false, err
		}
		pdone()
		cdone()
		if !p.IsDir() {
			return false, meta.ErrNotDir
		}
		if err := meta.Access(&p, cred, meta.MayExec); err != nil {
			return false, err
		}
		if child == 0 {
			return false, meta.ErrNotFound
		}
		if err := meta.MayDelete(&p, &a, cred); err != nil {
			return false, err
		}
		if a.IsDir() {
			return false, meta.ErrIsDir
		}
		var errno int64
		err = scanAttr(c.queryRow("SELECT r_errno, "+coalescedResult()+
			" FROM cairn_unlink(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", int64(parent), nameArg(name), child,
			int64(p.Mode), int64(p.Uid), int64(p.Gid), int64(a.Uid), int64(a.Type), int64(sid), nowNs()), &a, &errno)
		return e.guardedResult(err, errno, fmt.Sprintf("removing %q, it may or may not be gone", name))
	})
	if err != nil {
		return 0, meta.Attr{}, err
	}
	return meta.Ino(child), a, nil
}

// coalescedResult is the r_ columns of a function returning attributes,
// with a missing row part read as zeros.
func coalescedResult() string {
	cols := strings.Split(nodeCols, ", ")
	for i, c := range cols {
		cols[i] = "coalesce(r_" + c + ", 0)"
	}
	return strings.Join(cols, ", ")
}
