CREATE PROCEDURE cairn_setattr(p_ino BIGINT, p_which BIGINT, p_mode BIGINT, p_uid BIGINT, p_gid BIGINT,
	p_atime BIGINT, p_mtime BIGINT, c_uid BIGINT, c_groups TEXT, p_now BIGINT)
BEGIN
	DECLARE a_ftype, a_mode, a_uid, a_gid, a_rdev, a_nlink, a_length, a_atime, a_mtime, a_ctime, a_parent, v_gid, v_mode BIGINT;
	DECLARE v_root, v_owner BOOLEAN;
	DECLARE v_changed BOOLEAN DEFAULT p_which & 127 <> 0;
	DECLARE r_errno INT DEFAULT 0;
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	START TRANSACTION;
	body: BEGIN
		-- meta.ApplySetAttr. p_which: 1 mode, 2 uid, 4 gid, 8 atime,
		-- 16 mtime, 32 atime now, 64 mtime now, 128 clear setid (no
		-- permission needed; ctime changes only if the mode does).
		SELECT ftype, mode, uid, gid, rdev, nlink, length, atime, mtime, ctime, parent
			INTO a_ftype, a_mode, a_uid, a_gid, a_rdev, a_nlink, a_length, a_atime, a_mtime, a_ctime, a_parent
			FROM cairn_node WHERE ino = p_ino FOR UPDATE;
		IF a_ftype IS NULL THEN SET r_errno = 2; LEAVE body; END IF;            -- ENOENT
		SET v_root = c_uid = 0;
		SET v_owner = v_root OR c_uid = a_uid;
		SET r_errno = 1;                                                        -- EPERM
		IF p_which & 2 <> 0 AND p_uid <> a_uid AND NOT v_root THEN LEAVE body; END IF;
		IF p_which & 4 <> 0 AND p_gid <> a_gid AND NOT v_root
			AND NOT (c_uid = a_uid AND cairn_in_group(c_groups, p_gid)) THEN LEAVE body; END IF;
		IF p_which & 25 <> 0 AND NOT v_owner THEN LEAVE body; END IF;
		SET r_errno = 0;
		IF p_which & 96 <> 0 AND NOT v_owner THEN
			SET r_errno = cairn_access(a_ftype, a_mode, a_uid, a_gid, c_uid, c_groups, 2);
			IF r_errno <> 0 THEN LEAVE body; END IF;
		END IF;
		IF p_which & 128 <> 0 THEN
			SET v_mode = cairn_mode_after_write(a_ftype, a_mode, a_gid, c_uid, c_groups);
			IF v_mode <> a_mode THEN SET a_mode = v_mode, v_changed = TRUE; END IF;
		END IF;
		IF p_which & 1 <> 0 THEN
			SET a_mode = p_mode & 4095;
			IF NOT v_root AND a_mode & 1024 <> 0 AND NOT cairn_in_group(c_groups, a_gid) THEN
				SET v_gid = IF(p_which & 4 <> 0, p_gid, a_gid);
				IF NOT cairn_in_group(c_groups, v_gid) THEN SET a_mode = a_mode & ~1024; END IF;
			END IF;
		END IF;
		IF p_which & 6 <> 0 THEN
			IF p_which & 1 = 0 THEN
				SET a_mode = cairn_mode_after_chown(a_ftype, a_mode, a_gid, c_uid, c_groups);
			END IF;
			IF p_which & 2 <> 0 THEN SET a_uid = p_uid; END IF;
			IF p_which & 4 <> 0 THEN SET a_gid = p_gid; END IF;
		END IF;
		IF p_which & 8 <> 0 THEN SET a_atime = p_atime; END IF;
		IF p_which & 32 <> 0 THEN SET a_atime = p_now; END IF;
		IF p_which & 16 <> 0 THEN SET a_mtime = p_mtime; END IF;
		IF p_which & 64 <> 0 THEN SET a_mtime = p_now; END IF;
		IF v_changed THEN SET a_ctime = p_now; END IF;
		UPDATE cairn_node SET mode = a_mode, uid = a_uid, gid = a_gid, atime = a_atime, mtime = a_mtime, ctime = a_ctime
			WHERE ino = p_ino;
	END;
	IF r_errno = 0 THEN COMMIT; ELSE ROLLBACK; END IF;
	SELECT COALESCE(r_errno, 0), COALESCE(a_ftype, 0), COALESCE(a_mode, 0), COALESCE(a_uid, 0),
		COALESCE(a_gid, 0), COALESCE(a_rdev, 0), COALESCE(a_nlink, 0), COALESCE(a_length, 0),
		COALESCE(a_atime, 0), COALESCE(a_mtime, 0), COALESCE(a_ctime, 0), COALESCE(a_parent, 0);
END
