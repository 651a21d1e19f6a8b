CREATE PROCEDURE cairn_create(p_parent BIGINT, p_name VARBINARY(255), p_ino BIGINT, p_ftype BIGINT,
	p_mode BIGINT, p_rdev BIGINT, p_target LONGBLOB, c_uid BIGINT, c_gid BIGINT, c_groups TEXT, p_now BIGINT,
	p_max_inodes BIGINT)
BEGIN
	DECLARE v_ftype, v_mode, v_uid, v_gid, v_one, v_used BIGINT;
	DECLARE r_mode, r_gid, r_nlink, r_length, r_parent BIGINT DEFAULT 0;
	DECLARE r_errno INT DEFAULT 0;
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	START TRANSACTION;
	body: BEGIN
		SELECT ftype, mode, uid, gid INTO v_ftype, v_mode, v_uid, v_gid FROM cairn_node WHERE ino = p_parent FOR UPDATE;
		SET r_errno = cairn_search(v_ftype, v_mode, v_uid, v_gid, c_uid, c_groups);
		IF r_errno <> 0 THEN LEAVE body; END IF;
		SELECT 1 INTO v_one FROM cairn_edge WHERE parent = p_parent AND name = p_name;
		IF v_one IS NOT NULL THEN SET r_errno = 17; LEAVE body; END IF;         -- EEXIST
		SET r_errno = cairn_access(v_ftype, v_mode, v_uid, v_gid, c_uid, c_groups, 3);
		IF r_errno <> 0 THEN LEAVE body; END IF;
		IF p_max_inodes > 0 THEN
			SELECT SUM(inodes) INTO v_used FROM cairn_usage;
			IF v_used + 1 > p_max_inodes THEN SET r_errno = 28; LEAVE body; END IF; -- ENOSPC
		END IF;
		-- meta.InitAttr
		SET r_mode = p_mode & 4095, r_gid = c_gid, r_nlink = 1;
		IF v_mode & 1024 <> 0 THEN
			SET r_gid = v_gid;
			IF p_ftype = 2 THEN
				SET r_mode = r_mode | 1024;
			ELSEIF r_mode & 1032 = 1032 AND c_uid <> 0 AND NOT cairn_in_group(c_groups, r_gid) THEN
				SET r_mode = r_mode & ~1024;
			END IF;
		END IF;
		IF p_ftype = 2 THEN SET r_nlink = 2, r_length = 4096, r_parent = p_parent; END IF;
		IF p_ftype = 3 THEN
			SET r_length = LENGTH(p_target);
			INSERT INTO cairn_symlink (ino, target) VALUES (p_ino, p_target);
		END IF;
		INSERT INTO cairn_node (ino, ftype, mode, uid, gid, rdev, nlink, length, atime, mtime, ctime, parent)
			VALUES (p_ino, p_ftype, r_mode, c_uid, r_gid, p_rdev, r_nlink, r_length, p_now, p_now, p_now, r_parent);
		INSERT INTO cairn_edge (parent, name, ino, ftype) VALUES (p_parent, p_name, p_ino, p_ftype);
		UPDATE cairn_node SET nlink = nlink + IF(p_ftype = 2, 1, 0), mtime = p_now, ctime = p_now WHERE ino = p_parent;
		UPDATE cairn_usage SET inodes = inodes + 1 WHERE id = CONNECTION_ID() % 16 + 1;
	END;
	IF r_errno = 0 THEN COMMIT; ELSE ROLLBACK; END IF;
	SELECT COALESCE(r_errno, 0), COALESCE(p_ftype, 0), COALESCE(r_mode, 0), COALESCE(c_uid, 0),
		COALESCE(r_gid, 0), COALESCE(p_rdev, 0), COALESCE(r_nlink, 0), COALESCE(r_length, 0),
		COALESCE(p_now, 0), COALESCE(p_now, 0), COALESCE(p_now, 0), COALESCE(r_parent, 0);
END
