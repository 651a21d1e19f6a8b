CREATE OR REPLACE FUNCTION cairn_rmdir(p_parent bigint, p_name bytea, c_uid bigint, c_groups text, p_now bigint)
RETURNS TABLE (r_errno int)
LANGUAGE plpgsql AS $$
DECLARE
	v cairn_node%ROWTYPE;
	target bigint;
BEGIN
	SELECT * INTO r_errno, target FROM cairn_lock_victim(p_parent, p_name, c_uid, c_groups);
	IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	SELECT * INTO v FROM cairn_node WHERE ino = target;
	IF v.ftype <> 2 THEN r_errno := 20; RETURN NEXT; RETURN; END IF;
	-- Entries are made under their directory's row lock, which is held.
	PERFORM 1 FROM cairn_edge WHERE parent = target LIMIT 1;
	IF FOUND THEN r_errno := 39; RETURN NEXT; RETURN; END IF;            -- ENOTEMPTY
	DELETE FROM cairn_edge WHERE parent = p_parent AND name = p_name;
	UPDATE cairn_node SET nlink = nlink - 1, mtime = p_now, ctime = p_now WHERE ino = p_parent;
	DELETE FROM cairn_node WHERE ino = target;
	DELETE FROM cairn_xattr WHERE ino = target;
	DELETE FROM cairn_flock WHERE ino = target;
	DELETE FROM cairn_plock WHERE ino = target;
	UPDATE cairn_usage SET inodes = inodes - 1 WHERE id = pg_backend_pid() % 16 + 1;
	RETURN NEXT;
END
$$
