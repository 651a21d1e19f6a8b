CREATE OR REPLACE FUNCTION cairn_link(p_ino bigint, p_parent bigint, p_name bytea, c_uid bigint, c_groups text,
	p_now bigint)
RETURNS TABLE (r_errno int, r_ftype bigint, r_mode bigint, r_uid bigint, r_gid bigint, r_rdev bigint,
	r_nlink bigint, r_length bigint, r_atime bigint, r_mtime bigint, r_ctime bigint, r_parent bigint)
LANGUAGE plpgsql AS $$
DECLARE
	p cairn_node%ROWTYPE;
	f cairn_node%ROWTYPE;
BEGIN
	PERFORM 1 FROM cairn_node WHERE ino IN (p_ino, p_parent) ORDER BY ino FOR UPDATE;
	SELECT * INTO p FROM cairn_node WHERE ino = p_parent;
	r_errno := cairn_search(p.ftype, p.mode, p.uid, p.gid, c_uid, c_groups);
	IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	SELECT * INTO f FROM cairn_node WHERE ino = p_ino;
	IF NOT FOUND THEN r_errno := 2; RETURN NEXT; RETURN; END IF;
	PERFORM 1 FROM cairn_edge WHERE parent = p_parent AND name = p_name;
	IF FOUND THEN r_errno := 17; RETURN NEXT; RETURN; END IF;            -- EEXIST
	r_errno := cairn_access(p.ftype, p.mode, p.uid, p.gid, c_uid, c_groups, 3);
	IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	IF f.ftype = 2 THEN r_errno := 1; RETURN NEXT; RETURN; END IF;       -- EPERM
	IF f.nlink = 0 THEN r_errno := 2; RETURN NEXT; RETURN; END IF;
	IF f.nlink >= 65000 THEN r_errno := 31; RETURN NEXT; RETURN; END IF; -- EMLINK (maxLinks)
	UPDATE cairn_node SET nlink = nlink + 1, ctime = p_now WHERE ino = p_ino;
	INSERT INTO cairn_edge (parent, name, ino, ftype) VALUES (p_parent, p_name, p_ino, f.ftype);
	UPDATE cairn_node SET mtime = p_now, ctime = p_now WHERE ino = p_parent;
	r_ftype := f.ftype; r_mode := f.mode; r_uid := f.uid; r_gid := f.gid; r_rdev := f.rdev;
	r_nlink := f.nlink + 1; r_length := f.length; r_atime := f.atime; r_mtime := f.mtime; r_ctime := p_now;
	r_parent := f.parent;
	RETURN NEXT;
END
$$
