CREATE PROCEDURE cairn_move(p_sp BIGINT, p_sn VARBINARY(255), p_dp BIGINT, p_dn VARBINARY(255),
	p_flags BIGINT, c_uid BIGINT, c_groups TEXT, p_sid BIGINT, p_now BIGINT)
BEGIN
	DECLARE v_one, v_anc, r_ino, v_dst BIGINT;
	DECLARE r_replaced, v_sp_delta, v_dp_delta BIGINT DEFAULT 0;
	DECLARE v_exchange, v_cross BOOLEAN DEFAULT FALSE;
	DECLARE sp_ftype, sp_mode, sp_uid, sp_gid, dp_ftype, dp_mode, dp_uid, dp_gid BIGINT;
	DECLARE s_ftype, s_mode, s_uid, s_gid, s_rdev, s_nlink, s_length, s_atime, s_mtime, s_ctime, s_parent BIGINT;
	DECLARE d_ftype, d_mode, d_uid, d_gid, d_nlink BIGINT;
	DECLARE r_errno INT DEFAULT 0;
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	START TRANSACTION;
	body: BEGIN
		SET v_exchange = p_flags & 2 <> 0;
		-- Moving a directory between parents takes the rename lock first
		-- (rename.go: lockCrossDirectoryRenames). The entries' types are
		-- peeked at before any lock and checked again under the locks.
		IF p_sp <> p_dp AND EXISTS (SELECT 1 FROM cairn_edge WHERE ftype = 2 AND
			(parent = p_sp AND name = p_sn OR parent = p_dp AND name = p_dn)) THEN
			SELECT value INTO v_one FROM cairn_counter WHERE name = 'rename' FOR UPDATE;
			SET v_cross = TRUE;
		END IF;
		SELECT ino INTO v_one FROM cairn_node WHERE ino = LEAST(p_sp, p_dp) FOR UPDATE;
		SELECT ino INTO v_one FROM cairn_node WHERE ino = GREATEST(p_sp, p_dp) FOR UPDATE;
		SELECT ftype, mode, uid, gid INTO sp_ftype, sp_mode, sp_uid, sp_gid FROM cairn_node WHERE ino = p_sp;
		SET r_errno = cairn_search(sp_ftype, sp_mode, sp_uid, sp_gid, c_uid, c_groups);
		IF r_errno <> 0 THEN LEAVE body; END IF;
		SELECT ftype, mode, uid, gid INTO dp_ftype, dp_mode, dp_uid, dp_gid FROM cairn_node WHERE ino = p_dp;
		SET r_errno = cairn_search(dp_ftype, dp_mode, dp_uid, dp_gid, c_uid, c_groups);
		IF r_errno <> 0 THEN LEAVE body; END IF;
		SELECT ino INTO r_ino FROM cairn_edge WHERE parent = p_sp AND name = p_sn;
		IF r_ino IS NULL THEN SET r_errno = 2; LEAVE body; END IF;
		SELECT ino INTO v_dst FROM cairn_edge WHERE parent = p_dp AND name = p_dn;
		IF p_flags & 1 <> 0 AND v_dst IS NOT NULL THEN SET r_errno = 17; LEAVE body; END IF; -- EEXIST
		IF v_exchange AND v_dst IS NULL THEN SET r_errno = 2; LEAVE body; END IF;
		SELECT ino INTO v_one FROM cairn_node WHERE ino = LEAST(r_ino, COALESCE(v_dst, r_ino)) FOR UPDATE;
		SELECT ino INTO v_one FROM cairn_node WHERE ino = GREATEST(r_ino, COALESCE(v_dst, r_ino)) FOR UPDATE;
		SELECT ftype, mode, uid, gid, rdev, nlink, length, atime, mtime, ctime, parent
			INTO s_ftype, s_mode, s_uid, s_gid, s_rdev, s_nlink, s_length, s_atime, s_mtime, s_ctime, s_parent
			FROM cairn_node WHERE ino = r_ino;
		IF s_ftype IS NULL THEN SET r_errno = 5; LEAVE body; END IF;            -- EIO: entry without inode
		IF v_dst IS NOT NULL THEN
			SELECT ftype, mode, uid, gid, nlink INTO d_ftype, d_mode, d_uid, d_gid, d_nlink FROM cairn_node WHERE ino = v_dst;
			IF d_ftype IS NULL THEN SET r_errno = 5; LEAVE body; END IF;
			IF v_dst = r_ino THEN LEAVE body; END IF;                            -- two names of one inode
		END IF;
		IF p_sp <> p_dp AND NOT v_cross AND (s_ftype = 2 OR d_ftype = 2) THEN
			SET r_errno = -1; LEAVE body;                                        -- changed since the peek: again
		END IF;
		IF s_ftype = 2 AND p_sp <> p_dp THEN
			SET v_anc = cairn_is_ancestor(r_ino, p_dp);
			IF v_anc < 0 THEN SET r_errno = 5; LEAVE body; END IF;
			IF v_anc > 0 THEN SET r_errno = 22; LEAVE body; END IF;             -- EINVAL
		END IF;
		IF d_ftype = 2 AND p_sp <> p_dp THEN
			SET v_anc = cairn_is_ancestor(v_dst, p_sp);
			IF v_anc < 0 THEN SET r_errno = 5; LEAVE body; END IF;
			IF v_anc > 0 THEN SET r_errno = IF(v_exchange, 22, 39); LEAVE body; END IF; -- EINVAL, ENOTEMPTY
		END IF;
		SET r_errno = cairn_may_delete(sp_mode, sp_uid, sp_gid, s_uid, c_uid, c_groups);
		IF r_errno <> 0 THEN LEAVE body; END IF;
		IF v_dst IS NOT NULL THEN
			SET r_errno = cairn_may_delete(dp_mode, dp_uid, dp_gid, d_uid, c_uid, c_groups);
		ELSE
			SET r_errno = cairn_access(dp_ftype, dp_mode, dp_uid, dp_gid, c_uid, c_groups, 3);
		END IF;
		IF r_errno <> 0 THEN LEAVE body; END IF;
		IF v_dst IS NOT NULL AND NOT v_exchange THEN
			IF s_ftype = 2 AND d_ftype <> 2 THEN SET r_errno = 20; LEAVE body; END IF; -- ENOTDIR
			IF s_ftype <> 2 AND d_ftype = 2 THEN SET r_errno = 21; LEAVE body; END IF; -- EISDIR
		END IF;
		IF p_sp <> p_dp THEN
			IF s_ftype = 2 THEN
				SET r_errno = cairn_access(s_ftype, s_mode, s_uid, s_gid, c_uid, c_groups, 2);
				IF r_errno <> 0 THEN LEAVE body; END IF;
			END IF;
			IF v_exchange AND d_ftype = 2 THEN
				SET r_errno = cairn_access(d_ftype, d_mode, d_uid, d_gid, c_uid, c_groups, 2);
				IF r_errno <> 0 THEN LEAVE body; END IF;
			END IF;
		END IF;
		IF p_flags & 65536 <> 0 THEN                                                 -- meta.RenameEmptyDir
			IF s_ftype <> 2 THEN SET r_errno = 20; LEAVE body; END IF;                  -- ENOTDIR
			-- Entries are made under their directory's row lock, which is held.
			SET v_one = NULL;
			SELECT 1 INTO v_one FROM cairn_edge WHERE parent = r_ino LIMIT 1;
			IF v_one IS NOT NULL THEN SET r_errno = 39; LEAVE body; END IF;             -- ENOTEMPTY
		END IF;
		IF v_dst IS NOT NULL AND NOT v_exchange AND d_ftype = 2 THEN
			SET v_one = NULL;
			SELECT 1 INTO v_one FROM cairn_edge WHERE parent = v_dst LIMIT 1;
			IF v_one IS NOT NULL THEN SET r_errno = 39; LEAVE body; END IF;             -- ENOTEMPTY
		END IF;

		IF v_exchange THEN
			UPDATE cairn_edge SET ino = v_dst, ftype = d_ftype WHERE parent = p_sp AND name = p_sn;
			UPDATE cairn_edge SET ino = r_ino, ftype = s_ftype WHERE parent = p_dp AND name = p_dn;
			IF p_sp <> p_dp AND d_ftype = 2 THEN
				SET v_dp_delta = v_dp_delta - 1, v_sp_delta = v_sp_delta + 1;
				UPDATE cairn_node SET parent = p_sp, ctime = p_now WHERE ino = v_dst;
			ELSE
				UPDATE cairn_node SET ctime = p_now WHERE ino = v_dst;
			END IF;
		ELSE
			IF v_dst IS NOT NULL THEN
				IF d_ftype = 2 THEN
					SET v_dp_delta = v_dp_delta - 1;
					DELETE FROM cairn_node WHERE ino = v_dst;
					DELETE FROM cairn_xattr WHERE ino = v_dst;
					DELETE FROM cairn_flock WHERE ino = v_dst;
					DELETE FROM cairn_plock WHERE ino = v_dst;
					UPDATE cairn_usage SET inodes = inodes - 1 WHERE id = CONNECTION_ID() % 16 + 1;
				ELSE
					UPDATE cairn_node SET nlink = nlink - 1, ctime = p_now WHERE ino = v_dst;
					IF d_nlink = 1 THEN
						INSERT INTO cairn_orphan (ino, sid) VALUES (v_dst, p_sid);
						SET r_replaced = v_dst;
					END IF;
				END IF;
				UPDATE cairn_edge SET ino = r_ino, ftype = s_ftype WHERE parent = p_dp AND name = p_dn;
			ELSE
				INSERT INTO cairn_edge (parent, name, ino, ftype) VALUES (p_dp, p_dn, r_ino, s_ftype);
			END IF;
			DELETE FROM cairn_edge WHERE parent = p_sp AND name = p_sn;
		END IF;
		IF p_sp <> p_dp AND s_ftype = 2 THEN
			SET v_sp_delta = v_sp_delta - 1, v_dp_delta = v_dp_delta + 1, s_parent = p_dp;
		END IF;
		SET s_ctime = p_now;
		UPDATE cairn_node SET parent = s_parent, ctime = p_now WHERE ino = r_ino;
		IF p_sp = p_dp THEN
			UPDATE cairn_node SET nlink = nlink + v_sp_delta + v_dp_delta, mtime = p_now, ctime = p_now WHERE ino = p_sp;
		ELSE
			UPDATE cairn_node SET nlink = nlink + v_sp_delta, mtime = p_now, ctime = p_now WHERE ino = p_sp;
			UPDATE cairn_node SET nlink = nlink + v_dp_delta, mtime = p_now, ctime = p_now WHERE ino = p_dp;
		END IF;
	END;
	IF r_errno = 0 THEN COMMIT; ELSE ROLLBACK; END IF;
	SELECT COALESCE(r_errno, 0), COALESCE(r_ino, 0), COALESCE(r_replaced, 0), COALESCE(s_ftype, 0),
		COALESCE(s_mode, 0), COALESCE(s_uid, 0), COALESCE(s_gid, 0), COALESCE(s_rdev, 0),
		COALESCE(s_nlink, 0), COALESCE(s_length, 0), COALESCE(s_atime, 0), COALESCE(s_mtime, 0),
		COALESCE(s_ctime, 0), COALESCE(s_parent, 0);
END
