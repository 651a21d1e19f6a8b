CREATE OR REPLACE FUNCTION cairn_release(p_sid bigint, p_ino bigint)
RETURNS TABLE (r_errno int)
LANGUAGE plpgsql AS $$
DECLARE
	owner bigint;
	a cairn_node%ROWTYPE;
BEGIN
	r_errno := 0;
	SELECT sid INTO owner FROM cairn_orphan WHERE ino = p_ino FOR UPDATE;
	IF NOT FOUND OR owner <> p_sid THEN RETURN NEXT; RETURN; END IF;
	DELETE FROM cairn_orphan WHERE ino = p_ino;
	SELECT * INTO a FROM cairn_node WHERE ino = p_ino FOR UPDATE;
	IF NOT FOUND OR a.nlink > 0 THEN RETURN NEXT; RETURN; END IF;
	-- namespace.go removeInode
	IF a.ftype = 3 THEN
		DELETE FROM cairn_symlink WHERE ino = p_ino;
	ELSIF a.ftype = 1 THEN
		PERFORM cairn_drop_chunks(p_ino, 0);
	END IF;
	DELETE FROM cairn_node WHERE ino = p_ino;
	DELETE FROM cairn_xattr WHERE ino = p_ino;
	DELETE FROM cairn_flock WHERE ino = p_ino;
	DELETE FROM cairn_plock WHERE ino = p_ino;
	UPDATE cairn_usage SET inodes = inodes - 1,
		space = space - CASE WHEN a.ftype = 1 THEN (a.length + 4095) / 4096 * 4096 ELSE 0 END WHERE id = 1;
	RETURN NEXT;
END
$$
