CREATE OR REPLACE FUNCTION cairn_setattr(p_ino bigint, p_which bigint, p_mode bigint, p_uid bigint, p_gid bigint,
	p_atime bigint, p_mtime bigint, c_uid bigint, c_groups text, p_now bigint)
RETURNS TABLE (r_errno int, r_ftype bigint, r_mode bigint, r_uid bigint, r_gid bigint, r_rdev bigint,
	r_nlink bigint, r_length bigint, r_atime bigint, r_mtime bigint, r_ctime bigint, r_parent bigint)
LANGUAGE plpgsql AS $$
DECLARE
	a cairn_node%ROWTYPE;
	is_root boolean := c_uid = 0;
	is_owner boolean;
	g bigint;
	m bigint;
	changed boolean := p_which & 127 <> 0;
BEGIN
	-- meta.ApplySetAttr. p_which: 1 mode, 2 uid, 4 gid, 8 atime, 16 mtime,
	-- 32 atime now, 64 mtime now, 128 clear setid (no permission needed;
	-- ctime changes only if the mode does).
	SELECT * INTO a FROM cairn_node WHERE ino = p_ino FOR UPDATE;
	IF NOT FOUND THEN r_errno := 2; RETURN NEXT; RETURN; END IF;          -- ENOENT
	is_owner := is_root OR c_uid = a.uid;
	r_errno := 1;                                                         -- EPERM
	IF p_which & 2 <> 0 AND p_uid <> a.uid AND NOT is_root THEN RETURN NEXT; RETURN; END IF;
	IF p_which & 4 <> 0 AND p_gid <> a.gid AND NOT is_root
		AND NOT (c_uid = a.uid AND cairn_in_group(c_groups, p_gid)) THEN RETURN NEXT; RETURN; END IF;
	IF p_which & 25 <> 0 AND NOT is_owner THEN RETURN NEXT; RETURN; END IF;
	r_errno := 0;
	IF p_which & 96 <> 0 AND NOT is_owner THEN
		r_errno := cairn_access(a.ftype, a.mode, a.uid, a.gid, c_uid, c_groups, 2);
		IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	END IF;
	IF p_which & 128 <> 0 THEN
		m := cairn_mode_after_write(a.ftype, a.mode, a.gid, c_uid, c_groups);
		IF m <> a.mode THEN a.mode := m; changed := true; END IF;
	END IF;
	IF p_which & 1 <> 0 THEN
		a.mode := p_mode & 4095;
		IF NOT is_root AND a.mode & 1024 <> 0 AND NOT cairn_in_group(c_groups, a.gid) THEN
			g := CASE WHEN p_which & 4 <> 0 THEN p_gid ELSE a.gid END;
			IF NOT cairn_in_group(c_groups, g) THEN a.mode := a.mode & ~1024::bigint; END IF;
		END IF;
	END IF;
	IF p_which & 6 <> 0 THEN
		IF p_which & 1 = 0 THEN
			a.mode := cairn_mode_after_chown(a.ftype, a.mode, a.gid, c_uid, c_groups);
		END IF;
		IF p_which & 2 <> 0 THEN a.uid := p_uid; END IF;
		IF p_which & 4 <> 0 THEN a.gid := p_gid; END IF;
	END IF;
	IF p_which & 8 <> 0 THEN a.atime := p_atime; END IF;
	IF p_which & 32 <> 0 THEN a.atime := p_now; END IF;
	IF p_which & 16 <> 0 THEN a.mtime := p_mtime; END IF;
	IF p_which & 64 <> 0 THEN a.mtime := p_now; END IF;
	IF changed THEN a.ctime := p_now; END IF;
	UPDATE cairn_node SET mode = a.mode, uid = a.uid, gid = a.gid, atime = a.atime, mtime = a.mtime, ctime = a.ctime
		WHERE ino = p_ino;
	r_ftype := a.ftype; r_mode := a.mode; r_uid := a.uid; r_gid := a.gid; r_rdev := a.rdev;
	r_nlink := a.nlink; r_length := a.length; r_atime := a.atime; r_mtime := a.mtime; r_ctime := a.ctime;
	r_parent := a.parent;
	RETURN NEXT;
END
$$
