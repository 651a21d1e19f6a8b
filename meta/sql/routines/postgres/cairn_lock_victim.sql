CREATE OR REPLACE FUNCTION cairn_lock_victim(p_parent bigint, p_name bytea, c_uid bigint, c_groups text,
	OUT r_errno int, OUT r_target bigint)
LANGUAGE plpgsql AS $$
DECLARE
	p cairn_node%ROWTYPE;
	v_uid bigint;
BEGIN
	-- The lookup unlink and rmdir share (meta.MayDelete on the entry):
	-- locks the directory and the entry's inode, or says why not.
	SELECT * INTO p FROM cairn_node WHERE ino = p_parent FOR UPDATE;
	r_errno := cairn_search(p.ftype, p.mode, p.uid, p.gid, c_uid, c_groups);
	IF r_errno <> 0 THEN RETURN; END IF;
	SELECT ino INTO r_target FROM cairn_edge WHERE parent = p_parent AND name = p_name;
	IF NOT FOUND THEN r_errno := 2; RETURN; END IF;
	SELECT uid INTO v_uid FROM cairn_node WHERE ino = r_target FOR UPDATE;
	IF NOT FOUND THEN r_errno := 5; RETURN; END IF;                      -- EIO: entry without inode
	r_errno := cairn_may_delete(p.mode, p.uid, p.gid, v_uid, c_uid, c_groups);
END
$$
