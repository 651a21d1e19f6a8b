CREATE PROCEDURE cairn_lock_victim(p_parent BIGINT, p_name VARBINARY(255), c_uid BIGINT,
	c_groups TEXT, OUT r_errno INT, OUT r_target BIGINT)
body: BEGIN
	-- The lookup unlink and rmdir share (meta.MayDelete on the entry):
	-- locks the directory and the entry's inode, or says why not. It runs
	-- in its caller's transaction.
	DECLARE v_ftype, v_mode, v_uid, v_gid, s_uid BIGINT;
	SET r_errno = 0, r_target = NULL;
	SELECT ftype, mode, uid, gid INTO v_ftype, v_mode, v_uid, v_gid FROM cairn_node WHERE ino = p_parent FOR UPDATE;
	SET r_errno = cairn_search(v_ftype, v_mode, v_uid, v_gid, c_uid, c_groups);
	IF r_errno <> 0 THEN LEAVE body; END IF;
	SELECT ino INTO r_target FROM cairn_edge WHERE parent = p_parent AND name = p_name;
	IF r_target IS NULL THEN SET r_errno = 2; LEAVE body; END IF;
	SELECT uid INTO s_uid FROM cairn_node WHERE ino = r_target FOR UPDATE;
	IF s_uid IS NULL THEN SET r_errno = 5; LEAVE body; END IF;              -- EIO: entry without inode
	SET r_errno = cairn_may_delete(v_mode, v_uid, v_gid, s_uid, c_uid, c_groups);
END
