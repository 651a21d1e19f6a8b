CREATE PROCEDURE cairn_link(p_ino BIGINT, p_parent BIGINT, p_name VARBINARY(255), c_uid BIGINT, c_groups TEXT,
	p_now BIGINT)
BEGIN
	DECLARE v_one, v_ftype, v_mode, v_uid, v_gid BIGINT;
	DECLARE f_ftype, f_mode, f_uid, f_gid, f_rdev, f_nlink, f_length, f_atime, f_mtime, f_parent BIGINT;
	DECLARE r_errno INT DEFAULT 0;
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	START TRANSACTION;
	body: BEGIN
		SELECT ino INTO v_one FROM cairn_node WHERE ino = LEAST(p_ino, p_parent) FOR UPDATE;
		SELECT ino INTO v_one FROM cairn_node WHERE ino = GREATEST(p_ino, p_parent) FOR UPDATE;
		SET v_one = NULL;
		SELECT ftype, mode, uid, gid INTO v_ftype, v_mode, v_uid, v_gid FROM cairn_node WHERE ino = p_parent;
		SET r_errno = cairn_search(v_ftype, v_mode, v_uid, v_gid, c_uid, c_groups);
		IF r_errno <> 0 THEN LEAVE body; END IF;
		SELECT ftype, mode, uid, gid, rdev, nlink, length, atime, mtime, parent
			INTO f_ftype, f_mode, f_uid, f_gid, f_rdev, f_nlink, f_length, f_atime, f_mtime, f_parent
			FROM cairn_node WHERE ino = p_ino;
		IF f_ftype IS NULL THEN SET r_errno = 2; LEAVE body; END IF;
		SELECT 1 INTO v_one FROM cairn_edge WHERE parent = p_parent AND name = p_name;
		IF v_one IS NOT NULL THEN SET r_errno = 17; LEAVE body; END IF;         -- EEXIST
		SET r_errno = cairn_access(v_ftype, v_mode, v_uid, v_gid, c_uid, c_groups, 3);
		IF r_errno <> 0 THEN LEAVE body; END IF;
		IF f_ftype = 2 THEN SET r_errno = 1; LEAVE body; END IF;               -- EPERM
		IF f_nlink = 0 THEN SET r_errno = 2; LEAVE body; END IF;
		IF f_nlink >= 65000 THEN SET r_errno = 31; LEAVE body; END IF;         -- EMLINK (maxLinks)
		UPDATE cairn_node SET nlink = nlink + 1, ctime = p_now WHERE ino = p_ino;
		INSERT INTO cairn_edge (parent, name, ino, ftype) VALUES (p_parent, p_name, p_ino, f_ftype);
		UPDATE cairn_node SET mtime = p_now, ctime = p_now WHERE ino = p_parent;
	END;
	IF r_errno = 0 THEN COMMIT; ELSE ROLLBACK; END IF;
	SELECT COALESCE(r_errno, 0), COALESCE(f_ftype, 0), COALESCE(f_mode, 0), COALESCE(f_uid, 0),
		COALESCE(f_gid, 0), COALESCE(f_rdev, 0), COALESCE(f_nlink + 1, 0), COALESCE(f_length, 0),
		COALESCE(f_atime, 0), COALESCE(f_mtime, 0), COALESCE(p_now, 0), COALESCE(f_parent, 0);
END
