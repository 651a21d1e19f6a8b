CREATE PROCEDURE cairn_rmdir(p_parent BIGINT, p_name VARBINARY(255), c_uid BIGINT, c_groups TEXT,
	p_now BIGINT)
BEGIN
	DECLARE v_target, s_ftype, v_one BIGINT;
	DECLARE r_errno INT DEFAULT 0;
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	START TRANSACTION;
	body: BEGIN
		CALL cairn_lock_victim(p_parent, p_name, c_uid, c_groups, r_errno, v_target);
		IF r_errno <> 0 THEN LEAVE body; END IF;
		SELECT ftype INTO s_ftype FROM cairn_node WHERE ino = v_target;
		IF s_ftype <> 2 THEN SET r_errno = 20; LEAVE body; END IF;
		-- Entries are made under their directory's row lock, which is held.
		SELECT 1 INTO v_one FROM cairn_edge WHERE parent = v_target LIMIT 1;
		IF v_one IS NOT NULL THEN SET r_errno = 39; LEAVE body; END IF;         -- ENOTEMPTY
		DELETE FROM cairn_edge WHERE parent = p_parent AND name = p_name;
		UPDATE cairn_node SET nlink = nlink - 1, mtime = p_now, ctime = p_now WHERE ino = p_parent;
		DELETE FROM cairn_node WHERE ino = v_target;
		DELETE FROM cairn_xattr WHERE ino = v_target;
		DELETE FROM cairn_flock WHERE ino = v_target;
		DELETE FROM cairn_plock WHERE ino = v_target;
		UPDATE cairn_usage SET inodes = inodes - 1 WHERE id = CONNECTION_ID() % 16 + 1;
	END;
	IF r_errno = 0 THEN COMMIT; ELSE ROLLBACK; END IF;
	SELECT COALESCE(r_errno, 0);
END
