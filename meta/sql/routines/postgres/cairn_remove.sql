CREATE OR REPLACE FUNCTION cairn_remove(p_parent bigint, p_name bytea, c_uid bigint, c_groups text,
	p_sid bigint, p_now bigint, p_expect bigint)
RETURNS TABLE (r_errno int, r_ino bigint, r_deleted bigint, r_ftype bigint, r_mode bigint, r_uid bigint, r_gid bigint, r_rdev bigint,
	r_nlink bigint, r_length bigint, r_atime bigint, r_mtime bigint, r_ctime bigint, r_parent bigint)
LANGUAGE plpgsql AS $$
DECLARE
	v cairn_node%ROWTYPE;
BEGIN
	SELECT * INTO r_errno, r_ino FROM cairn_lock_victim(p_parent, p_name, c_uid, c_groups);
	IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	SELECT * INTO v FROM cairn_node WHERE ino = r_ino;
	IF v.ftype = 2 THEN r_errno := 21; RETURN NEXT; RETURN; END IF;      -- EISDIR
	DELETE FROM cairn_edge WHERE parent = p_parent AND name = p_name;
	UPDATE cairn_node SET nlink = nlink - 1, ctime = p_now WHERE ino = r_ino;
	r_deleted := 0;
	IF v.nlink = 1 AND r_ino = p_expect THEN
		-- unlinkdelete.go: the last link of an inode the caller holds
		-- nowhere open goes with its inode, in this transaction.
		PERFORM cairn_delete_inode(r_ino, v.ftype, v.length);
		r_deleted := 1;
	ELSIF v.nlink = 1 THEN
		INSERT INTO cairn_orphan (ino, sid) VALUES (r_ino, p_sid);
	END IF;
	UPDATE cairn_node SET mtime = p_now, ctime = p_now WHERE ino = p_parent;
	r_ftype := v.ftype; r_mode := v.mode; r_uid := v.uid; r_gid := v.gid; r_rdev := v.rdev;
	r_nlink := v.nlink - 1; r_length := v.length; r_atime := v.atime; r_mtime := v.mtime; r_ctime := p_now;
	r_parent := v.parent;
	RETURN NEXT;
END
$$
