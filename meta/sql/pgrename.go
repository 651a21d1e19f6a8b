package sql

import (
	"context"
	"fmt"

	"cairn/meta"
)

// pgRename renames a non-directory in one guarded call, after one read:
// the common case (files moved or replaced) in two round trips. Renames
// that move or replace directories, which need loop checks and the
// cross-directory lock, take the general path.
const pgRename = `
CREATE OR REPLACE FUNCTION cairn_rename(p_sp bigint, p_sn bytea, p_dp bigint, p_dn bytea, p_src bigint, p_dst bigint,
	p_exchange boolean, p_sp_mode bigint, p_sp_uid bigint, p_sp_gid bigint, p_dp_mode bigint, p_dp_uid bigint,
	p_dp_gid bigint, p_src_uid bigint, p_src_type bigint, p_dst_uid bigint, p_dst_type bigint, p_sid bigint, p_now bigint)
RETURNS TABLE (r_errno int, r_replaced bigint, r_ftype bigint, r_mode bigint, r_uid bigint, r_gid bigint,
	r_rdev bigint, r_nlink bigint, r_length bigint, r_atime bigint, r_mtime bigint, r_ctime bigint, r_parent bigint)
LANGUAGE plpgsql AS $$
DECLARE
	sp cairn_node%ROWTYPE;
	dp cairn_node%ROWTYPE;
	s cairn_node%ROWTYPE;
	d cairn_node%ROWTYPE;
	t bigint;
BEGIN
	r_errno := -1; -- checked against stale attributes: run again
	r_replaced := 0;
	PERFORM 1 FROM cairn_node WHERE ino IN (p_sp, p_dp) ORDER BY ino FOR UPDATE;
	SELECT * INTO sp FROM cairn_node WHERE ino = p_sp;
	SELECT * INTO dp FROM cairn_node WHERE ino = p_dp;
	IF sp.ino IS NULL OR dp.ino IS NULL OR sp.ftype <> 2 OR dp.ftype <> 2
		OR sp.mode <> p_sp_mode OR sp.uid <> p_sp_uid OR sp.gid <> p_sp_gid
		OR dp.mode <> p_dp_mode OR dp.uid <> p_dp_uid OR dp.gid <> p_dp_gid THEN
		RETURN NEXT; RETURN;
	END IF;
	SELECT ino INTO t FROM cairn_edge WHERE parent = p_sp AND name = p_sn;
	IF NOT FOUND OR t <> p_src THEN RETURN NEXT; RETURN; END IF;
	SELECT ino INTO t FROM cairn_edge WHERE parent = p_dp AND name = p_dn;
	IF (p_dst = 0 AND FOUND) OR (p_dst <> 0 AND (NOT FOUND OR t <> p_dst)) THEN RETURN NEXT; RETURN; END IF;
	PERFORM 1 FROM cairn_node WHERE ino IN (p_src, p_dst) ORDER BY ino FOR UPDATE;
	SELECT * INTO s FROM cairn_node WHERE ino = p_src;
	IF s.ino IS NULL OR s.uid <> p_src_uid OR s.ftype <> p_src_type THEN RETURN NEXT; RETURN; END IF;
	IF p_dst <> 0 THEN
		SELECT * INTO d FROM cairn_node WHERE ino = p_dst;
		IF d.ino IS NULL OR d.uid <> p_dst_uid OR d.ftype <> p_dst_type THEN RETURN NEXT; RETURN; END IF;
	END IF;
	IF p_exchange THEN
		UPDATE cairn_edge SET ino = p_dst, ftype = d.ftype WHERE parent = p_sp AND name = p_sn;
		UPDATE cairn_edge SET ino = p_src, ftype = s.ftype WHERE parent = p_dp AND name = p_dn;
		UPDATE cairn_node SET ctime = p_now WHERE ino = p_dst;
	ELSE
		IF p_dst <> 0 THEN
			UPDATE cairn_node SET nlink = nlink - 1, ctime = p_now WHERE ino = p_dst;
			IF d.nlink = 1 THEN
				INSERT INTO cairn_orphan (ino, sid) VALUES (p_dst, p_sid);
				r_replaced := p_dst;
			END IF;
			UPDATE cairn_edge SET ino = p_src, ftype = s.ftype WHERE parent = p_dp AND name = p_dn;
		ELSE
			INSERT INTO cairn_edge (parent, name, ino, ftype) VALUES (p_dp, p_dn, p_src, s.ftype);
		END IF;
		DELETE FROM cairn_edge WHERE parent = p_sp AND name = p_sn;
	END IF;
	UPDATE cairn_node SET ctime = p_now WHERE ino = p_src;
	UPDATE cairn_node SET mtime = p_now, ctime = p_now WHERE ino IN (p_sp, p_dp);
	r_errno := 0;
	r_ftype := s.ftype; r_mode := s.mode; r_uid := s.uid; r_gid := s.gid; r_rdev := s.rdev;
	r_nlink := s.nlink; r_length := s.length; r_atime := s.atime; r_mtime := s.mtime; r_ctime := p_now;
	r_parent := s.parent;
	RETURN NEXT;
END
$$`

// errGeneral sends an operation down the general path.
var errGeneral = fmt.Errorf("needs the general path")

// renameServerSide renames a non-directory in two round trips, or returns
// errGeneral for the cases the general path handles (directories, missing
// or mistyped parents or entries).
func (e *Engine) renameServerSide(ctx context.Context, cred meta.Cred, sp meta.Ino, sn string, dp meta.Ino, dn string, flags uint32, sid uint64) (moved meta.Ino, attr meta.Attr, replaced meta.Ino, err error) {
	exchange := flags&meta.RenameExchange != 0
	err = e.retry(ctx, func() (bool, error) {
		c := &conn{ctx: ctx, e: e, q: e.db}
		var spa, dpa, src, dst meta.Attr
		var srcIno, dstIno int64
		d1, f1 := attrDest(&spa)
		d2, f2 := attrDest(&dpa)
		d3, f3 := attrDest(&src)
		d4, f4 := attrDest(&dst)
		dest := append(append(append(append(append(d1, d2...), &srcIno), d3...), &dstIno), d4...)
		err := c.queryRow("SELECT "+coalesced("sp")+", "+coalesced("dp")+", coalesce(se.ino, 0), "+coalesced("s")+
			", coalesce(de.ino, 0), "+coalesced("d")+" FROM cairn_node sp JOIN cairn_node dp ON dp.ino = ? "+
			"LEFT JOIN cairn_edge se ON se.parent = sp.ino AND se.name = ? LEFT JOIN cairn_node s ON s.ino = se.ino "+
			"LEFT JOIN cairn_edge de ON de.parent = dp.ino AND de.name = ? LEFT JOIN cairn_node d ON d.ino = de.ino "+
			"WHERE sp.ino = ?", int64(dp), nameArg(sn), nameArg(dn), int64(sp)).Scan(dest...)
		if isNoRows(err) {
			return false, errGeneral
		}
		if err != nil {
			return false, err
		}
		f1()
		f2()
		f3()
		f4()
		if !spa.IsDir() || !dpa.IsDir() || srcIno == 0 || src.IsDir() || (dstIno != 0 && dst.IsDir()) {
			return false, errGeneral
		}
		for _, p := range []*meta.Attr{&spa, &dpa} {
			if err := meta.Access(p, cred, meta.MayExec); err != nil {
				return false, err
			}
		}
		if flags&meta.RenameNoReplace != 0 && dstIno != 0 {
			return false, meta.ErrExists
		}
		if exchange && dstIno == 0 {
			return false, meta.ErrNotFound
		}
		moved, attr, replaced = meta.Ino(srcIno), src, 0
		if srcIno == dstIno {
			return false, nil
		}
		if err := meta.MayDelete(&spa, &src, cred); err != nil {
			return false, err
		}
		if dstIno != 0 {
			if err := meta.MayDelete(&dpa, &dst, cred); err != nil {
				return false, err
			}
		} else if err := meta.Access(&dpa, cred, meta.MayWrite|meta.MayExec); err != nil {
			return false, err
		}
		var errno, gone int64
		err = scanAttr(c.queryRow("SELECT r_errno, r_replaced, "+coalescedResult()+
			" FROM cairn_rename(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			int64(sp), nameArg(sn), int64(dp), nameArg(dn), srcIno, dstIno, exchange,
			int64(spa.Mode), int64(spa.Uid), int64(spa.Gid), int64(dpa.Mode), int64(dpa.Uid), int64(dpa.Gid),
			int64(src.Uid), int64(src.Type), int64(dst.Uid), int64(dst.Type), int64(sid), nowNs()), &attr, &errno, &gone)
		unknown, err := e.guardedResult(err, errno, fmt.Sprintf("renaming %q, it may or may not have moved", sn))
		if err == nil {
			replaced = meta.Ino(gone)
		}
		return unknown, err
	})
	return moved, attr, replaced, err
}
