CREATE OR REPLACE FUNCTION cairn_delete_inode(p_ino bigint, p_ftype bigint, p_length bigint) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	-- namespace.go removeInode: an inode of no link and no orphan row, in
	-- its caller's transaction (cairn_release, cairn_remove).
	IF p_ftype = 3 THEN
		DELETE FROM cairn_symlink WHERE ino = p_ino;
	ELSIF p_ftype = 1 THEN
		PERFORM cairn_drop_chunks(p_ino, 0);
	END IF;
	DELETE FROM cairn_node WHERE ino = p_ino;
	DELETE FROM cairn_xattr WHERE ino = p_ino;
	DELETE FROM cairn_flock WHERE ino = p_ino;
	DELETE FROM cairn_plock WHERE ino = p_ino;
	UPDATE cairn_usage SET inodes = inodes - 1,
		space = space - CASE WHEN p_ftype = 1 THEN (p_length + 4095) / 4096 * 4096 ELSE 0 END WHERE id = pg_backend_pid() % 16 + 1;
END
$$
