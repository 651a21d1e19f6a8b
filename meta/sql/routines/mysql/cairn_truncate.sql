CREATE PROCEDURE cairn_truncate(p_ino BIGINT, p_length BIGINT, c_uid BIGINT, c_groups TEXT, p_now BIGINT,
	p_capacity BIGINT)
BEGIN
	DECLARE a_ftype, a_mode, a_uid, a_gid, a_rdev, a_nlink, a_length, a_atime, a_parent BIGINT;
	DECLARE v_delta BIGINT;
	DECLARE v_chunk_size BIGINT DEFAULT 67108864;
	DECLARE r_errno INT DEFAULT 0;
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	START TRANSACTION;
	body: BEGIN
		SELECT ftype, mode, uid, gid, rdev, nlink, length, atime, parent
			INTO a_ftype, a_mode, a_uid, a_gid, a_rdev, a_nlink, a_length, a_atime, a_parent
			FROM cairn_node WHERE ino = p_ino FOR UPDATE;
		SET r_errno = cairn_file_errno(a_ftype, 22);
		IF r_errno <> 0 THEN LEAVE body; END IF;
		SET r_errno = cairn_access(a_ftype, a_mode, a_uid, a_gid, c_uid, c_groups, 2);
		IF r_errno <> 0 THEN LEAVE body; END IF;
		SET v_delta = cairn_grow(a_length, p_length);
		SET r_errno = cairn_space_errno(v_delta, p_capacity);
		IF r_errno <> 0 THEN LEAVE body; END IF;
		IF p_length < a_length THEN
			CALL cairn_drop_chunks(p_ino, (p_length + v_chunk_size - 1) DIV v_chunk_size);
			CALL cairn_hide_range(p_ino, p_length, LEAST(a_length, (p_length DIV v_chunk_size + 1) * v_chunk_size));
		END IF;
		UPDATE cairn_node SET length = p_length, mtime = p_now, ctime = p_now WHERE ino = p_ino;
		IF v_delta <> 0 THEN
			UPDATE cairn_usage SET space = space + v_delta WHERE id = CONNECTION_ID() % 16 + 1;
		END IF;
	END;
	IF r_errno = 0 THEN COMMIT; ELSE ROLLBACK; END IF;
	SELECT COALESCE(r_errno, 0), COALESCE(a_ftype, 0), COALESCE(a_mode, 0), COALESCE(a_uid, 0),
		COALESCE(a_gid, 0), COALESCE(a_rdev, 0), COALESCE(a_nlink, 0), COALESCE(p_length, 0),
		COALESCE(a_atime, 0), COALESCE(p_now, 0), COALESCE(p_now, 0), COALESCE(a_parent, 0);
END
