CREATE PROCEDURE cairn_write(p_ino BIGINT, p_idx BIGINT, p_rec LONGBLOB, p_end BIGINT, p_id BIGINT,
	p_size BIGINT, p_mtime BIGINT, p_capacity BIGINT)
BEGIN
	DECLARE v_ftype, v_mode, v_uid, v_gid, v_rdev, v_nlink, v_length, v_atime, v_parent BIGINT;
	DECLARE v_len, v_delta, v_count BIGINT;
	DECLARE r_errno INT DEFAULT 0;
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	START TRANSACTION;
	body: BEGIN
		SELECT ftype, mode, uid, gid, rdev, nlink, length, atime, parent
			INTO v_ftype, v_mode, v_uid, v_gid, v_rdev, v_nlink, v_length, v_atime, v_parent
			FROM cairn_node WHERE ino = p_ino FOR UPDATE;
		SET r_errno = cairn_file_errno(v_ftype, 22);
		IF r_errno <> 0 THEN LEAVE body; END IF;
		SET v_len = GREATEST(v_length, p_end);
		SET v_delta = cairn_grow(v_length, v_len);
		SET r_errno = cairn_space_errno(v_delta, p_capacity);
		IF r_errno <> 0 THEN LEAVE body; END IF;
		INSERT INTO cairn_chunk (ino, idx, slices) VALUES (p_ino, p_idx, p_rec)
			ON DUPLICATE KEY UPDATE slices = CONCAT(slices, VALUES(slices));
		SELECT LENGTH(slices) DIV 24 INTO v_count FROM cairn_chunk WHERE ino = p_ino AND idx = p_idx;
		IF p_id <> 0 THEN
			INSERT INTO cairn_sliceref (id, size, refs) VALUES (p_id, p_size, 1)
				ON DUPLICATE KEY UPDATE refs = refs + 1;
		END IF;
		UPDATE cairn_node SET length = v_len, mtime = p_mtime, ctime = p_mtime WHERE ino = p_ino;
		IF v_delta <> 0 THEN
			UPDATE cairn_usage SET space = space + v_delta WHERE id = CONNECTION_ID() % 16 + 1;
		END IF;
	END;
	IF r_errno = 0 THEN COMMIT; ELSE ROLLBACK; END IF;
	SELECT COALESCE(r_errno, 0), COALESCE(v_count, 0), COALESCE(v_ftype, 0), COALESCE(v_mode, 0),
		COALESCE(v_uid, 0), COALESCE(v_gid, 0), COALESCE(v_rdev, 0), COALESCE(v_nlink, 0), COALESCE(v_len, 0),
		COALESCE(v_atime, 0), COALESCE(p_mtime, 0), COALESCE(p_mtime, 0), COALESCE(v_parent, 0);
END
