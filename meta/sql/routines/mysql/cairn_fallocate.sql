CREATE PROCEDURE cairn_fallocate(p_ino BIGINT, p_mode BIGINT, p_off BIGINT, p_end BIGINT, c_uid BIGINT,
	c_groups TEXT, p_now BIGINT, p_capacity BIGINT)
BEGIN
	DECLARE a_ftype, a_mode, a_uid, a_gid, a_rdev, a_nlink, a_length, a_atime, a_mtime, a_parent BIGINT;
	DECLARE v_len, v_delta BIGINT;
	DECLARE r_errno INT DEFAULT 0;
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	START TRANSACTION;
	body: BEGIN
		-- data.go Fallocate, after its checks of the arguments. p_mode:
		-- 1 keep size, 2 punch a hole, 16 zero the range.
		SELECT ftype, mode, uid, gid, rdev, nlink, length, atime, mtime, parent
			INTO a_ftype, a_mode, a_uid, a_gid, a_rdev, a_nlink, a_length, a_atime, a_mtime, a_parent
			FROM cairn_node WHERE ino = p_ino FOR UPDATE;
		SET r_errno = cairn_file_errno(a_ftype, 19);
		IF r_errno <> 0 THEN LEAVE body; END IF;
		SET r_errno = cairn_access(a_ftype, a_mode, a_uid, a_gid, c_uid, c_groups, 2);
		IF r_errno <> 0 THEN LEAVE body; END IF;
		SET v_len = a_length;
		IF p_mode & 1 = 0 AND p_end > v_len THEN SET v_len = p_end; END IF;
		SET v_delta = cairn_grow(a_length, v_len);
		SET r_errno = cairn_space_errno(v_delta, p_capacity);
		IF r_errno <> 0 THEN LEAVE body; END IF;
		IF p_mode & 18 <> 0 THEN
			CALL cairn_hide_range(p_ino, p_off, LEAST(p_end, a_length));
			SET a_mtime = p_now;
		ELSEIF v_len <> a_length THEN
			SET a_mtime = p_now;
		END IF;
		UPDATE cairn_node SET length = v_len, mtime = a_mtime, ctime = p_now WHERE ino = p_ino;
		IF v_delta <> 0 THEN
			UPDATE cairn_usage SET space = space + v_delta WHERE id = CONNECTION_ID() % 16 + 1;
		END IF;
	END;
	IF r_errno = 0 THEN COMMIT; ELSE ROLLBACK; END IF;
	SELECT COALESCE(r_errno, 0), COALESCE(a_ftype, 0), COALESCE(a_mode, 0), COALESCE(a_uid, 0),
		COALESCE(a_gid, 0), COALESCE(a_rdev, 0), COALESCE(a_nlink, 0), COALESCE(v_len, 0),
		COALESCE(a_atime, 0), COALESCE(a_mtime, 0), COALESCE(p_now, 0), COALESCE(a_parent, 0);
END
