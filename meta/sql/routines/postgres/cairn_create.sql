CREATE OR REPLACE FUNCTION cairn_create(p_parent bigint, p_name bytea, p_ino bigint, p_ftype bigint, p_mode bigint,
	p_rdev bigint, p_target bytea, c_uid bigint, c_gid bigint, c_groups text, p_now bigint, p_max_inodes bigint)
RETURNS TABLE (r_errno int, r_ftype bigint, r_mode bigint, r_uid bigint, r_gid bigint, r_rdev bigint,
	r_nlink bigint, r_length bigint, r_atime bigint, r_mtime bigint, r_ctime bigint, r_parent bigint)
LANGUAGE plpgsql AS $$
DECLARE
	p cairn_node%ROWTYPE;
	used bigint;
BEGIN
	SELECT * INTO p FROM cairn_node WHERE ino = p_parent FOR UPDATE;
	r_errno := cairn_search(p.ftype, p.mode, p.uid, p.gid, c_uid, c_groups);
	IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	PERFORM 1 FROM cairn_edge WHERE parent = p_parent AND name = p_name;
	IF FOUND THEN r_errno := 17; RETURN NEXT; RETURN; END IF;            -- EEXIST
	r_errno := cairn_access(p.ftype, p.mode, p.uid, p.gid, c_uid, c_groups, 3);
	IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	IF p_max_inodes > 0 THEN
		SELECT sum(inodes) INTO used FROM cairn_usage;
		IF used + 1 > p_max_inodes THEN r_errno := 28; RETURN NEXT; RETURN; END IF; -- ENOSPC
	END IF;
	-- meta.InitAttr
	r_ftype := p_ftype; r_mode := p_mode & 4095; r_uid := c_uid; r_gid := c_gid; r_rdev := p_rdev;
	r_nlink := 1; r_length := 0; r_parent := 0;
	r_atime := p_now; r_mtime := p_now; r_ctime := p_now;
	IF p.mode & 1024 <> 0 THEN
		r_gid := p.gid;
		IF p_ftype = 2 THEN
			r_mode := r_mode | 1024;
		ELSIF r_mode & 1032 = 1032 AND c_uid <> 0 AND NOT cairn_in_group(c_groups, r_gid) THEN
			r_mode := r_mode & ~1024::bigint;
		END IF;
	END IF;
	IF p_ftype = 2 THEN r_nlink := 2; r_length := 4096; r_parent := p_parent; END IF;
	IF p_ftype = 3 THEN
		r_length := octet_length(p_target);
		INSERT INTO cairn_symlink (ino, target) VALUES (p_ino, p_target);
	END IF;
	INSERT INTO cairn_node (ino, ftype, mode, uid, gid, rdev, nlink, length, atime, mtime, ctime, parent)
		VALUES (p_ino, r_ftype, r_mode, r_uid, r_gid, r_rdev, r_nlink, r_length, p_now, p_now, p_now, r_parent);
	INSERT INTO cairn_edge (parent, name, ino, ftype) VALUES (p_parent, p_name, p_ino, p_ftype);
	UPDATE cairn_node SET nlink = nlink + CASE WHEN p_ftype = 2 THEN 1 ELSE 0 END, mtime = p_now, ctime = p_now
		WHERE ino = p_parent;
	UPDATE cairn_usage SET inodes = inodes + 1 WHERE id = pg_backend_pid() % 16 + 1;
	RETURN NEXT;
END
$$
