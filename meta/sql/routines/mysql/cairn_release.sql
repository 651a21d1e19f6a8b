CREATE PROCEDURE cairn_release(p_sid BIGINT, p_ino BIGINT)
BEGIN
	DECLARE v_owner, a_ftype, a_nlink, a_length BIGINT;
	DECLARE r_errno INT DEFAULT 0;
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	START TRANSACTION;
	body: BEGIN
		SELECT sid INTO v_owner FROM cairn_orphan WHERE ino = p_ino FOR UPDATE;
		IF v_owner IS NULL OR v_owner <> p_sid THEN LEAVE body; END IF;
		DELETE FROM cairn_orphan WHERE ino = p_ino;
		SELECT ftype, nlink, length INTO a_ftype, a_nlink, a_length FROM cairn_node WHERE ino = p_ino FOR UPDATE;
		IF a_ftype IS NULL OR a_nlink > 0 THEN LEAVE body; END IF;
		-- namespace.go removeInode
		IF a_ftype = 3 THEN
			DELETE FROM cairn_symlink WHERE ino = p_ino;
		ELSEIF a_ftype = 1 THEN
			CALL cairn_drop_chunks(p_ino, 0);
		END IF;
		DELETE FROM cairn_node WHERE ino = p_ino;
		DELETE FROM cairn_xattr WHERE ino = p_ino;
		DELETE FROM cairn_flock WHERE ino = p_ino;
		DELETE FROM cairn_plock WHERE ino = p_ino;
		UPDATE cairn_usage SET inodes = inodes - 1,
			space = space - IF(a_ftype = 1, (a_length + 4095) DIV 4096 * 4096, 0) WHERE id = 1;
	END;
	IF r_errno = 0 THEN COMMIT; ELSE ROLLBACK; END IF;
	SELECT COALESCE(r_errno, 0);
END
