CREATE PROCEDURE cairn_remove(p_parent BIGINT, p_name VARBINARY(255), c_uid BIGINT, c_groups TEXT,
	p_sid BIGINT, p_now BIGINT, p_expect BIGINT)
BEGIN
	DECLARE r_ino BIGINT;
	DECLARE s_ftype, s_mode, s_uid, s_gid, s_rdev, s_nlink, s_length, s_atime, s_mtime, s_parent BIGINT;
	DECLARE r_errno INT DEFAULT 0;
	DECLARE r_deleted BIGINT DEFAULT 0;
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	START TRANSACTION;
	body: BEGIN
		CALL cairn_lock_victim(p_parent, p_name, c_uid, c_groups, r_errno, r_ino);
		IF r_errno <> 0 THEN LEAVE body; END IF;
		SELECT ftype, mode, uid, gid, rdev, nlink, length, atime, mtime, parent
			INTO s_ftype, s_mode, s_uid, s_gid, s_rdev, s_nlink, s_length, s_atime, s_mtime, s_parent
			FROM cairn_node WHERE ino = r_ino;
		IF s_ftype = 2 THEN SET r_errno = 21; LEAVE body; END IF;              -- EISDIR
		DELETE FROM cairn_edge WHERE parent = p_parent AND name = p_name;
		UPDATE cairn_node SET nlink = nlink - 1, ctime = p_now WHERE ino = r_ino;
		IF s_nlink = 1 AND r_ino = p_expect THEN
			-- unlinkdelete.go: the last link of an inode the caller holds
			-- nowhere open goes with its inode, in this transaction.
			CALL cairn_delete_inode(r_ino, s_ftype, s_length);
			SET r_deleted = 1;
		ELSEIF s_nlink = 1 THEN
			INSERT INTO cairn_orphan (ino, sid) VALUES (r_ino, p_sid);
		END IF;
		UPDATE cairn_node SET mtime = p_now, ctime = p_now WHERE ino = p_parent;
	END;
	IF r_errno = 0 THEN COMMIT; ELSE ROLLBACK; END IF;
	SELECT COALESCE(r_errno, 0), COALESCE(r_ino, 0), r_deleted, COALESCE(s_ftype, 0), COALESCE(s_mode, 0),
		COALESCE(s_uid, 0), COALESCE(s_gid, 0), COALESCE(s_rdev, 0), COALESCE(s_nlink - 1, 0),
		COALESCE(s_length, 0), COALESCE(s_atime, 0), COALESCE(s_mtime, 0), COALESCE(p_now, 0),
		COALESCE(s_parent, 0);
END
