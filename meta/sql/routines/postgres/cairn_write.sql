CREATE OR REPLACE FUNCTION cairn_write(p_ino bigint, p_idx bigint, p_rec bytea, p_end bigint,
	p_id bigint, p_size bigint, p_mtime bigint, p_capacity bigint)
RETURNS TABLE (r_errno int, r_count bigint, r_ftype bigint, r_mode bigint, r_uid bigint, r_gid bigint,
	r_rdev bigint, r_nlink bigint, r_length bigint, r_atime bigint, r_mtime bigint, r_ctime bigint, r_parent bigint)
LANGUAGE plpgsql AS $$
DECLARE
	n cairn_node%ROWTYPE;
	new_len bigint;
	delta bigint;
BEGIN
	SELECT * INTO n FROM cairn_node WHERE cairn_node.ino = p_ino FOR UPDATE;
	r_errno := cairn_file_errno(n.ftype, 22);
	IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	new_len := greatest(n.length, p_end);
	delta := cairn_grow(n.length, new_len);
	r_errno := cairn_space_errno(delta, p_capacity);
	IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	INSERT INTO cairn_chunk AS c (ino, idx, slices) VALUES (p_ino, p_idx, p_rec)
		ON CONFLICT (ino, idx) DO UPDATE SET slices = c.slices || excluded.slices
		RETURNING octet_length(c.slices) / 24 INTO r_count;
	IF p_id <> 0 THEN
		INSERT INTO cairn_sliceref AS r (id, size, refs) VALUES (p_id, p_size, 1)
			ON CONFLICT (id) DO UPDATE SET refs = r.refs + 1;
	END IF;
	UPDATE cairn_node SET length = new_len, mtime = p_mtime, ctime = p_mtime WHERE cairn_node.ino = p_ino;
	IF delta <> 0 THEN
		UPDATE cairn_usage SET space = space + delta WHERE id = pg_backend_pid() % 16 + 1;
	END IF;
	r_errno := 0;
	r_ftype := n.ftype; r_mode := n.mode; r_uid := n.uid; r_gid := n.gid; r_rdev := n.rdev;
	r_nlink := n.nlink; r_length := new_len; r_atime := n.atime; r_mtime := p_mtime; r_ctime := p_mtime;
	r_parent := n.parent;
	RETURN NEXT;
END
$$
