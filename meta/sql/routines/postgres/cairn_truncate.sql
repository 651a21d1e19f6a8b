CREATE OR REPLACE FUNCTION cairn_truncate(p_ino bigint, p_length bigint, c_uid bigint, c_groups text,
	p_now bigint, p_capacity bigint)
RETURNS TABLE (r_errno int, r_ftype bigint, r_mode bigint, r_uid bigint, r_gid bigint, r_rdev bigint,
	r_nlink bigint, r_length bigint, r_atime bigint, r_mtime bigint, r_ctime bigint, r_parent bigint)
LANGUAGE plpgsql AS $$
DECLARE
	a cairn_node%ROWTYPE;
	chunk_size constant bigint := 67108864;
	delta bigint;
BEGIN
	SELECT * INTO a FROM cairn_node WHERE ino = p_ino FOR UPDATE;
	r_errno := cairn_file_errno(a.ftype, 22);
	IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	r_errno := cairn_access(a.ftype, a.mode, a.uid, a.gid, c_uid, c_groups, 2);
	IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	delta := cairn_grow(a.length, p_length);
	r_errno := cairn_space_errno(delta, p_capacity);
	IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	IF p_length < a.length THEN
		PERFORM cairn_drop_chunks(p_ino, (p_length + chunk_size - 1) / chunk_size);
		PERFORM cairn_hide_range(p_ino, p_length, least(a.length, (p_length / chunk_size + 1) * chunk_size));
	END IF;
	UPDATE cairn_node SET length = p_length, mtime = p_now, ctime = p_now WHERE ino = p_ino;
	IF delta <> 0 THEN
		UPDATE cairn_usage SET space = space + delta WHERE id = pg_backend_pid() % 16 + 1;
	END IF;
	r_ftype := a.ftype; r_mode := a.mode; r_uid := a.uid; r_gid := a.gid; r_rdev := a.rdev;
	r_nlink := a.nlink; r_length := p_length; r_atime := a.atime; r_mtime := p_now; r_ctime := p_now;
	r_parent := a.parent;
	RETURN NEXT;
END
$$
