CREATE OR REPLACE FUNCTION cairn_fallocate(p_ino bigint, p_mode bigint, p_off bigint, p_end bigint,
	c_uid bigint, c_groups text, p_now bigint, p_capacity bigint)
RETURNS TABLE (r_errno int, r_ftype bigint, r_mode bigint, r_uid bigint, r_gid bigint, r_rdev bigint,
	r_nlink bigint, r_length bigint, r_atime bigint, r_mtime bigint, r_ctime bigint, r_parent bigint)
LANGUAGE plpgsql AS $$
DECLARE
	a cairn_node%ROWTYPE;
	new_len bigint;
	delta bigint;
BEGIN
	-- data.go Fallocate, after its checks of the arguments. p_mode: 1 keep
	-- size, 2 punch a hole, 16 zero the range.
	SELECT * INTO a FROM cairn_node WHERE ino = p_ino FOR UPDATE;
	r_errno := cairn_file_errno(a.ftype, 19);
	IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	r_errno := cairn_access(a.ftype, a.mode, a.uid, a.gid, c_uid, c_groups, 2);
	IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	new_len := a.length;
	IF p_mode & 1 = 0 AND p_end > new_len THEN new_len := p_end; END IF;
	delta := cairn_grow(a.length, new_len);
	r_errno := cairn_space_errno(delta, p_capacity);
	IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	IF p_mode & 18 <> 0 THEN
		PERFORM cairn_hide_range(p_ino, p_off, least(p_end, a.length));
		a.mtime := p_now;
	ELSIF new_len <> a.length THEN
		a.mtime := p_now;
	END IF;
	UPDATE cairn_node SET length = new_len, mtime = a.mtime, ctime = p_now WHERE ino = p_ino;
	IF delta <> 0 THEN
		UPDATE cairn_usage SET space = space + delta WHERE id = pg_backend_pid() % 16 + 1;
	END IF;
	r_ftype := a.ftype; r_mode := a.mode; r_uid := a.uid; r_gid := a.gid; r_rdev := a.rdev;
	r_nlink := a.nlink; r_length := new_len; r_atime := a.atime; r_mtime := a.mtime; r_ctime := p_now;
	r_parent := a.parent;
	RETURN NEXT;
END
$$
