CREATE PROCEDURE cairn_delete_inode(p_ino BIGINT, p_ftype BIGINT, p_length BIGINT)
BEGIN
	-- namespace.go removeInode: an inode of no link and no orphan row, in
	-- its caller's transaction (cairn_release, cairn_remove).
	IF p_ftype = 3 THEN
		DELETE FROM cairn_symlink WHERE ino = p_ino;
	ELSEIF p_ftype = 1 THEN
		CALL cairn_drop_chunks(p_ino, 0);
	END IF;
	DELETE FROM cairn_node WHERE ino = p_ino;
	DELETE FROM cairn_xattr WHERE ino = p_ino;
	DELETE FROM cairn_flock WHERE ino = p_ino;
	DELETE FROM cairn_plock WHERE ino = p_ino;
	UPDATE cairn_usage SET inodes = inodes - 1,
		space = space - IF(p_ftype = 1, (p_length + 4095) DIV 4096 * 4096, 0) WHERE id = CONNECTION_ID() % 16 + 1;
END
