package sql

import "strings"

// mysqlRoutines are pgroutines.go's functions ported to MySQL/MariaDB
// stored functions and procedures: the same arguments, the same checks in
// the same order, the same answer row. A procedure runs its own
// transaction (its statements would otherwise each commit on their own);
// the session is at READ COMMITTED (see readCommitted), so each read after
// a row lock sees what the lock's previous holder committed.
//
// Variables are prefixed (p_ argument, c_ caller, v_/s_/d_ rows read,
// r_ result) because in a stored routine a variable named like a column
// would shadow the column.
var mysqlRoutines = concat(
	mysqlFunction("cairn_in_group", "c_groups TEXT, p_gid BIGINT", "BOOLEAN DETERMINISTIC NO SQL",
		"RETURN LOCATE(CONCAT(',', p_gid, ','), c_groups) > 0"),
	mysqlFunction("cairn_file_errno", "n_ftype BIGINT, p_other INT", "INT DETERMINISTIC NO SQL",
		`RETURN CASE WHEN n_ftype IS NULL THEN 2 WHEN n_ftype = 2 THEN 21 -- ENOENT, EISDIR
		WHEN n_ftype <> 1 THEN p_other ELSE 0 END`), // not a regular file
	mysqlFunction("cairn_grow", "p_old BIGINT, p_new BIGINT", "BIGINT DETERMINISTIC NO SQL",
		"RETURN (p_new + 4095) DIV 4096 * 4096 - (p_old + 4095) DIV 4096 * 4096"),
	mysqlFunction("cairn_space_errno", "p_delta BIGINT, p_capacity BIGINT", "INT NOT DETERMINISTIC READS SQL DATA",
		`RETURN IF(p_capacity > 0 AND p_delta > 0
		AND (SELECT space FROM cairn_usage WHERE id = 1) + p_delta > p_capacity, 28, 0)`), // ENOSPC
	mysqlFunction("cairn_access", "n_ftype BIGINT, n_mode BIGINT, n_uid BIGINT, n_gid BIGINT, c_uid BIGINT, c_groups TEXT, p_mask BIGINT",
		"INT DETERMINISTIC NO SQL", `BEGIN
	DECLARE v_bits BIGINT;
	IF p_mask = 0 THEN RETURN 0; END IF;
	IF c_uid = 0 THEN
		IF p_mask & 1 <> 0 AND n_ftype <> 2 AND n_mode & 73 = 0 THEN RETURN 13; END IF; -- EACCES
		RETURN 0;
	END IF;
	IF c_uid = n_uid THEN
		SET v_bits = (n_mode >> 6) & 7;
	ELSEIF cairn_in_group(c_groups, n_gid) THEN
		SET v_bits = (n_mode >> 3) & 7;
	ELSE
		SET v_bits = n_mode & 7;
	END IF;
	IF v_bits & p_mask <> p_mask THEN RETURN 13; END IF;
	RETURN 0;
END`),
	mysqlFunction("cairn_may_delete", "d_mode BIGINT, d_uid BIGINT, d_gid BIGINT, v_uid BIGINT, c_uid BIGINT, c_groups TEXT",
		"INT DETERMINISTIC NO SQL", `BEGIN
	DECLARE v_err INT DEFAULT cairn_access(2, d_mode, d_uid, d_gid, c_uid, c_groups, 3);
	IF v_err <> 0 THEN RETURN v_err; END IF;
	IF d_mode & 512 <> 0 AND c_uid <> 0 AND c_uid <> d_uid AND c_uid <> v_uid THEN RETURN 1; END IF; -- EPERM
	RETURN 0;
END`),
	mysqlFunction("cairn_is_ancestor", "p_dir BIGINT, p_ino BIGINT", "INT NOT DETERMINISTIC READS SQL DATA", `BEGIN
	DECLARE v_cur BIGINT DEFAULT p_ino;
	DECLARE v_next BIGINT;
	DECLARE v_i INT DEFAULT 0;
	WHILE v_i < 65536 DO
		IF v_cur = p_dir THEN RETURN 1; END IF;
		IF v_cur = 1 THEN RETURN 0; END IF;
		SET v_next = NULL;
		SELECT parent INTO v_next FROM cairn_node WHERE ino = v_cur;
		IF v_next IS NULL THEN RETURN 0; END IF;
		SET v_cur = v_next, v_i = v_i + 1;
	END WHILE;
	RETURN -1; -- a parent chain too long: the tree may hold a loop
END`),

	mysqlFunction("cairn_search", "n_ftype BIGINT, n_mode BIGINT, n_uid BIGINT, n_gid BIGINT, c_uid BIGINT, c_groups TEXT",
		"INT DETERMINISTIC NO SQL", `BEGIN
	-- The checks of a directory a name is looked up in, given its row (all
	-- NULL when it is missing): it exists, is a directory, may be searched.
	IF n_ftype IS NULL THEN RETURN 2; END IF;                               -- ENOENT
	IF n_ftype <> 2 THEN RETURN 20; END IF;                                 -- ENOTDIR
	RETURN cairn_access(n_ftype, n_mode, n_uid, n_gid, c_uid, c_groups, 1);
END`),

	// cairn_lock_victim is the lookup unlink and rmdir share
	// (meta.MayDelete on the entry): it locks the directory and the
	// entry's inode, or says why not. It runs in its caller's transaction.
	[]string{"DROP PROCEDURE IF EXISTS cairn_lock_victim", `CREATE PROCEDURE cairn_lock_victim(p_parent BIGINT,
	p_name VARBINARY(255), c_uid BIGINT, c_groups TEXT, OUT r_errno INT, OUT r_target BIGINT)
body: BEGIN
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
END`},

	mysqlProcedure("cairn_write", "p_ino BIGINT, p_idx BIGINT, p_rec LONGBLOB, p_end BIGINT, p_id BIGINT, p_size BIGINT, "+
		"p_mtime BIGINT, p_capacity BIGINT", `
	DECLARE v_ftype, v_mode, v_uid, v_gid, v_rdev, v_nlink, v_length, v_atime, v_parent BIGINT;
	DECLARE v_len, v_delta, v_count BIGINT;`, `
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
			UPDATE cairn_usage SET space = space + v_delta WHERE id = 1;
		END IF;`,
		"r_errno, v_count, v_ftype, v_mode, v_uid, v_gid, v_rdev, v_nlink, v_len, v_atime, p_mtime, p_mtime, v_parent"),

	mysqlProcedure("cairn_create", "p_parent BIGINT, p_name VARBINARY(255), p_ino BIGINT, p_ftype BIGINT, p_mode BIGINT, "+
		"p_rdev BIGINT, p_target LONGBLOB, c_uid BIGINT, c_gid BIGINT, c_groups TEXT, p_now BIGINT, p_max_inodes BIGINT", `
	DECLARE v_ftype, v_mode, v_uid, v_gid, v_one, v_used BIGINT;
	DECLARE r_mode, r_gid, r_nlink, r_length, r_parent BIGINT DEFAULT 0;`, `
		SELECT ftype, mode, uid, gid INTO v_ftype, v_mode, v_uid, v_gid FROM cairn_node WHERE ino = p_parent FOR UPDATE;
		SET r_errno = cairn_search(v_ftype, v_mode, v_uid, v_gid, c_uid, c_groups);
		IF r_errno <> 0 THEN LEAVE body; END IF;
		SELECT 1 INTO v_one FROM cairn_edge WHERE parent = p_parent AND name = p_name;
		IF v_one IS NOT NULL THEN SET r_errno = 17; LEAVE body; END IF;         -- EEXIST
		SET r_errno = cairn_access(v_ftype, v_mode, v_uid, v_gid, c_uid, c_groups, 3);
		IF r_errno <> 0 THEN LEAVE body; END IF;
		IF p_max_inodes > 0 THEN
			SELECT inodes INTO v_used FROM cairn_usage WHERE id = 1;
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
		UPDATE cairn_usage SET inodes = inodes + 1 WHERE id = 1;`,
		"r_errno, p_ftype, r_mode, c_uid, r_gid, p_rdev, r_nlink, r_length, p_now, p_now, p_now, r_parent"),

	mysqlProcedure("cairn_remove", "p_parent BIGINT, p_name VARBINARY(255), c_uid BIGINT, c_groups TEXT, p_sid BIGINT, p_now BIGINT", `
	DECLARE r_ino BIGINT;
	DECLARE s_ftype, s_mode, s_uid, s_gid, s_rdev, s_nlink, s_length, s_atime, s_mtime, s_parent BIGINT;`, `
		CALL cairn_lock_victim(p_parent, p_name, c_uid, c_groups, r_errno, r_ino);
		IF r_errno <> 0 THEN LEAVE body; END IF;
		SELECT ftype, mode, uid, gid, rdev, nlink, length, atime, mtime, parent
			INTO s_ftype, s_mode, s_uid, s_gid, s_rdev, s_nlink, s_length, s_atime, s_mtime, s_parent
			FROM cairn_node WHERE ino = r_ino;
		IF s_ftype = 2 THEN SET r_errno = 21; LEAVE body; END IF;              -- EISDIR
		DELETE FROM cairn_edge WHERE parent = p_parent AND name = p_name;
		UPDATE cairn_node SET nlink = nlink - 1, ctime = p_now WHERE ino = r_ino;
		IF s_nlink = 1 THEN
			INSERT INTO cairn_orphan (ino, sid) VALUES (r_ino, p_sid);
		END IF;
		UPDATE cairn_node SET mtime = p_now, ctime = p_now WHERE ino = p_parent;`,
		"r_errno, r_ino, s_ftype, s_mode, s_uid, s_gid, s_rdev, s_nlink - 1, s_length, s_atime, s_mtime, p_now, s_parent"),

	mysqlProcedure("cairn_rmdir", "p_parent BIGINT, p_name VARBINARY(255), c_uid BIGINT, c_groups TEXT, p_now BIGINT", `
	DECLARE v_target, s_ftype, v_one BIGINT;`, `
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
		UPDATE cairn_usage SET inodes = inodes - 1 WHERE id = 1;`,
		"r_errno"),

	mysqlProcedure("cairn_move", "p_sp BIGINT, p_sn VARBINARY(255), p_dp BIGINT, p_dn VARBINARY(255), p_flags BIGINT, "+
		"c_uid BIGINT, c_groups TEXT, p_sid BIGINT, p_now BIGINT", `
	DECLARE v_one, v_anc, r_ino, v_dst BIGINT;
	DECLARE r_replaced, v_sp_delta, v_dp_delta BIGINT DEFAULT 0;
	DECLARE v_exchange, v_cross BOOLEAN DEFAULT FALSE;
	DECLARE sp_ftype, sp_mode, sp_uid, sp_gid, dp_ftype, dp_mode, dp_uid, dp_gid BIGINT;
	DECLARE s_ftype, s_mode, s_uid, s_gid, s_rdev, s_nlink, s_length, s_atime, s_mtime, s_ctime, s_parent BIGINT;
	DECLARE d_ftype, d_mode, d_uid, d_gid, d_nlink BIGINT;`, `
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
					UPDATE cairn_usage SET inodes = inodes - 1 WHERE id = 1;
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
		END IF;`,
		"r_errno, r_ino, r_replaced, s_ftype, s_mode, s_uid, s_gid, s_rdev, s_nlink, s_length, s_atime, s_mtime, s_ctime, s_parent"),
	mysqlProcedure("cairn_link", "p_ino BIGINT, p_parent BIGINT, p_name VARBINARY(255), c_uid BIGINT, c_groups TEXT, p_now BIGINT", `
	DECLARE v_one, v_ftype, v_mode, v_uid, v_gid BIGINT;
	DECLARE f_ftype, f_mode, f_uid, f_gid, f_rdev, f_nlink, f_length, f_atime, f_mtime, f_parent BIGINT;`, `
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
		UPDATE cairn_node SET mtime = p_now, ctime = p_now WHERE ino = p_parent;`,
		"r_errno, f_ftype, f_mode, f_uid, f_gid, f_rdev, f_nlink + 1, f_length, f_atime, f_mtime, p_now, f_parent"),

	mysqlProcedure("cairn_setxattr", "p_ino BIGINT, p_name VARBINARY(255), p_value MEDIUMBLOB, p_flags BIGINT, c_uid BIGINT, p_now BIGINT", `
	DECLARE v_owner, v_one BIGINT;`, `
		SELECT uid INTO v_owner FROM cairn_node WHERE ino = p_ino FOR UPDATE;
		IF v_owner IS NULL THEN SET r_errno = 2; LEAVE body; END IF;            -- ENOENT
		IF c_uid <> 0 AND c_uid <> v_owner THEN SET r_errno = 1; LEAVE body; END IF; -- EPERM
		IF p_flags <> 0 THEN
			SELECT 1 INTO v_one FROM cairn_xattr WHERE ino = p_ino AND name = p_name;
			IF v_one IS NOT NULL AND p_flags = 1 THEN SET r_errno = 17; LEAVE body; END IF; -- EEXIST
			IF v_one IS NULL AND p_flags = 2 THEN SET r_errno = 61; LEAVE body; END IF;     -- ENODATA
		END IF;
		INSERT INTO cairn_xattr (ino, name, value) VALUES (p_ino, p_name, p_value)
			ON DUPLICATE KEY UPDATE value = VALUES(value);
		UPDATE cairn_node SET ctime = p_now WHERE ino = p_ino;`,
		"r_errno"),

	mysqlProcedure("cairn_removexattr", "p_ino BIGINT, p_name VARBINARY(255), c_uid BIGINT, p_now BIGINT", `
	DECLARE v_owner BIGINT;`, `
		SELECT uid INTO v_owner FROM cairn_node WHERE ino = p_ino FOR UPDATE;
		IF v_owner IS NULL THEN SET r_errno = 2; LEAVE body; END IF;            -- ENOENT
		IF c_uid <> 0 AND c_uid <> v_owner THEN SET r_errno = 1; LEAVE body; END IF; -- EPERM
		DELETE FROM cairn_xattr WHERE ino = p_ino AND name = p_name;
		IF ROW_COUNT() = 0 THEN SET r_errno = 61; LEAVE body; END IF;          -- ENODATA
		UPDATE cairn_node SET ctime = p_now WHERE ino = p_ino;`,
		"r_errno"),
	mysqlProcedure("cairn_setattr", "p_ino BIGINT, p_which BIGINT, p_mode BIGINT, p_uid BIGINT, p_gid BIGINT, "+
		"p_atime BIGINT, p_mtime BIGINT, c_uid BIGINT, c_groups TEXT, p_now BIGINT", `
	DECLARE a_ftype, a_mode, a_uid, a_gid, a_rdev, a_nlink, a_length, a_atime, a_mtime, a_ctime, a_parent, v_gid BIGINT;
	DECLARE v_root, v_owner BOOLEAN;`, `
		-- meta.ApplySetAttr. p_which: 1 mode, 2 uid, 4 gid, 8 atime,
		-- 16 mtime, 32 atime now, 64 mtime now.
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
		IF p_which & 1 <> 0 THEN
			SET a_mode = p_mode & 4095;
			IF NOT v_root AND a_mode & 1024 <> 0 AND NOT cairn_in_group(c_groups, a_gid) THEN
				SET v_gid = IF(p_which & 4 <> 0, p_gid, a_gid);
				IF NOT cairn_in_group(c_groups, v_gid) THEN SET a_mode = a_mode & ~1024; END IF;
			END IF;
		END IF;
		IF p_which & 6 <> 0 THEN
			IF p_which & 2 <> 0 THEN SET a_uid = p_uid; END IF;
			IF p_which & 4 <> 0 THEN SET a_gid = p_gid; END IF;
			IF a_ftype <> 2 AND p_which & 1 = 0 THEN
				-- chown clears setuid, and setgid when group-executable.
				SET a_mode = a_mode & ~2048;
				IF a_mode & 8 <> 0 THEN SET a_mode = a_mode & ~1024; END IF;
			END IF;
		END IF;
		IF p_which & 8 <> 0 THEN SET a_atime = p_atime; END IF;
		IF p_which & 32 <> 0 THEN SET a_atime = p_now; END IF;
		IF p_which & 16 <> 0 THEN SET a_mtime = p_mtime; END IF;
		IF p_which & 64 <> 0 THEN SET a_mtime = p_now; END IF;
		IF p_which <> 0 THEN SET a_ctime = p_now; END IF;
		UPDATE cairn_node SET mode = a_mode, uid = a_uid, gid = a_gid, atime = a_atime, mtime = a_mtime, ctime = a_ctime
			WHERE ino = p_ino;`,
		"r_errno, a_ftype, a_mode, a_uid, a_gid, a_rdev, a_nlink, a_length, a_atime, a_mtime, a_ctime, a_parent"),
	// cairn_drop_chunks is data.go's dropChunks, in its caller's
	// transaction: the slices of the chunks from p_from on lose a
	// reference each (records of 24 bytes: pos, id, size, off, len, big
	// endian); those left with none become dead.
	[]string{"DROP PROCEDURE IF EXISTS cairn_drop_chunks", `CREATE PROCEDURE cairn_drop_chunks(p_ino BIGINT, p_from BIGINT)
BEGIN
	DECLARE v_done BOOLEAN DEFAULT FALSE;
	DECLARE v_slices LONGBLOB;
	DECLARE v_i, v_n, v_id, v_size BIGINT;
	DECLARE v_chunks CURSOR FOR SELECT slices FROM cairn_chunk WHERE ino = p_ino AND idx >= p_from;
	DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_done = TRUE;
	OPEN v_chunks;
	chunks: LOOP
		FETCH v_chunks INTO v_slices;
		IF v_done THEN LEAVE chunks; END IF;
		SET v_i = 0, v_n = LENGTH(v_slices) DIV 24;
		WHILE v_i < v_n DO
			SET v_id = CAST(CONV(HEX(SUBSTRING(v_slices, v_i * 24 + 5, 8)), 16, 10) AS UNSIGNED);
			SET v_size = CAST(CONV(HEX(SUBSTRING(v_slices, v_i * 24 + 13, 4)), 16, 10) AS UNSIGNED);
			IF v_id <> 0 THEN
				UPDATE cairn_sliceref SET refs = refs - 1 WHERE id = v_id;
				IF ROW_COUNT() = 0 THEN
					INSERT IGNORE INTO cairn_dead (id, size) VALUES (v_id, v_size); -- already dead, or never counted
				ELSE
					DELETE FROM cairn_sliceref WHERE id = v_id AND refs <= 0;
					IF ROW_COUNT() > 0 THEN
						INSERT INTO cairn_dead (id, size) VALUES (v_id, v_size);
					END IF;
				END IF;
			END IF;
			SET v_i = v_i + 1;
		END WHILE;
	END LOOP;
	CLOSE v_chunks;
	DELETE FROM cairn_chunk WHERE ino = p_ino AND idx >= p_from;
END`},

	// cairn_hide_range is data.go's hideRange, in its caller's
	// transaction: a hole record over [p_off, p_end) appended to each
	// chunk that exists there, so that those bytes read as zeros.
	[]string{"DROP PROCEDURE IF EXISTS cairn_hide_range", `CREATE PROCEDURE cairn_hide_range(p_ino BIGINT, p_off BIGINT, p_end BIGINT)
BEGIN
	IF p_off < p_end THEN
		UPDATE cairn_chunk SET slices = CONCAT(slices,
			UNHEX(LPAD(HEX(GREATEST(p_off, idx * 67108864) - idx * 67108864), 8, '0')), UNHEX(REPEAT('0', 16)),
			UNHEX(LPAD(HEX(LEAST(p_end, (idx + 1) * 67108864) - GREATEST(p_off, idx * 67108864)), 8, '0')), UNHEX(REPEAT('0', 8)),
			UNHEX(LPAD(HEX(LEAST(p_end, (idx + 1) * 67108864) - GREATEST(p_off, idx * 67108864)), 8, '0')))
		WHERE ino = p_ino AND idx BETWEEN p_off DIV 67108864 AND (p_end - 1) DIV 67108864;
	END IF;
END`},

	mysqlProcedure("cairn_release", "p_sid BIGINT, p_ino BIGINT", `
	DECLARE v_owner, a_ftype, a_nlink, a_length BIGINT;`, `
		SELECT sid INTO v_owner FROM cairn_orphan WHERE ino = p_ino FOR UPDATE;
		IF v_owner IS NULL OR v_owner <> p_sid THEN LEAVE body; END IF;
		DELETE FROM cairn_orphan WHERE ino = p_ino;
		SELECT ftype, nlink, length INTO a_ftype, a_nlink, a_length FROM cairn_node WHERE ino = p_ino FOR UPDATE;
		IF a_ftype IS NULL OR a_nlink > 0 THEN LEAVE body; END IF;
		-- namespace.go removeInode
		IF a_ftype = 3 THEN
			DELETE FROM cairn_symlink WHERE ino = p_ino;
		ELSEIF a_ftype = 1 THEN
			CALL cairn_drop_chunks(p_ino, 0);
		END IF;
		DELETE FROM cairn_node WHERE ino = p_ino;
		DELETE FROM cairn_xattr WHERE ino = p_ino;
		DELETE FROM cairn_flock WHERE ino = p_ino;
		DELETE FROM cairn_plock WHERE ino = p_ino;
		UPDATE cairn_usage SET inodes = inodes - 1,
			space = space - IF(a_ftype = 1, (a_length + 4095) DIV 4096 * 4096, 0) WHERE id = 1;`,
		"r_errno"),

	mysqlProcedure("cairn_truncate", "p_ino BIGINT, p_length BIGINT, c_uid BIGINT, c_groups TEXT, p_now BIGINT, p_capacity BIGINT", `
	DECLARE a_ftype, a_mode, a_uid, a_gid, a_rdev, a_nlink, a_length, a_atime, a_parent BIGINT;
	DECLARE v_delta BIGINT;
	DECLARE v_chunk_size BIGINT DEFAULT 67108864;`, `
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
			UPDATE cairn_usage SET space = space + v_delta WHERE id = 1;
		END IF;`,
		"r_errno, a_ftype, a_mode, a_uid, a_gid, a_rdev, a_nlink, p_length, a_atime, p_now, p_now, a_parent"),
	mysqlProcedure("cairn_flock", "p_ino BIGINT, p_sid BIGINT, p_owner BIGINT, p_type BIGINT", `
	DECLARE v_one BIGINT;`, `
		IF p_type = 2 THEN                                                      -- unlock
			DELETE FROM cairn_flock WHERE ino = p_ino AND sid = p_sid AND owner = p_owner;
			LEAVE body;
		END IF;
		-- The inode's row guards its lock table: two first lockers must
		-- not both see it empty.
		SELECT 1 INTO v_one FROM cairn_node WHERE ino = p_ino FOR UPDATE;
		IF v_one IS NULL THEN SET r_errno = 2; LEAVE body; END IF;              -- ENOENT
		IF EXISTS (SELECT 1 FROM cairn_flock WHERE ino = p_ino AND NOT (sid = p_sid AND owner = p_owner)
			AND (p_type = 1 OR ltype = 1)) THEN
			SET r_errno = 11; LEAVE body;                                       -- EAGAIN
		END IF;
		INSERT INTO cairn_flock (ino, sid, owner, ltype) VALUES (p_ino, p_sid, p_owner, p_type)
			ON DUPLICATE KEY UPDATE ltype = VALUES(ltype);`,
		"r_errno"),
	// cairn_lock_conflict tells whether a byte-range lock of p_type over
	// [p_start, p_end] conflicts with another owner's (locks.go
	// conflicting). Ranges are records of 24 bytes: type (4), start (8),
	// end (8), pid (4), big endian, so bytes compare as the numbers do.
	[]string{"DROP PROCEDURE IF EXISTS cairn_lock_conflict", `CREATE PROCEDURE cairn_lock_conflict(p_ino BIGINT,
	p_sid BIGINT, p_owner BIGINT, p_type BIGINT, p_start VARBINARY(8), p_end VARBINARY(8), OUT r_conflict BOOLEAN)
BEGIN
	DECLARE v_ranges LONGBLOB;
	DECLARE v_i, v_n BIGINT;
	DECLARE v_done BOOLEAN DEFAULT FALSE;
	DECLARE v_others CURSOR FOR SELECT ranges FROM cairn_plock
		WHERE ino = p_ino AND NOT (sid = p_sid AND owner = p_owner);
	DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_done = TRUE;
	SET r_conflict = FALSE;
	OPEN v_others;
	scan: LOOP
		FETCH v_others INTO v_ranges;
		IF v_done OR r_conflict THEN LEAVE scan; END IF;
		SET v_i = 0, v_n = LENGTH(v_ranges) DIV 24;
		WHILE v_i < v_n AND NOT r_conflict DO
			SET r_conflict = SUBSTRING(v_ranges, v_i * 24 + 13, 8) >= p_start AND SUBSTRING(v_ranges, v_i * 24 + 5, 8) <= p_end
				AND (p_type = 1 OR ASCII(SUBSTRING(v_ranges, v_i * 24 + 4, 1)) = 1);
			SET v_i = v_i + 1;
		END WHILE;
	END LOOP;
	CLOSE v_others;
END`},

	mysqlProcedure("cairn_setlk", "p_ino BIGINT, p_sid BIGINT, p_owner BIGINT, p_type BIGINT, "+
		"p_start VARBINARY(8), p_end VARBINARY(8), p_old LONGBLOB, p_new LONGBLOB", `
	DECLARE v_one BIGINT;
	DECLARE v_cur LONGBLOB;
	DECLARE v_conflict BOOLEAN DEFAULT FALSE;`, `
		-- locks.go SetLk. The caller computed p_new, this owner's ranges
		-- with the lock applied, from p_old; they must still be the stored
		-- ones.
		SELECT 1 INTO v_one FROM cairn_node WHERE ino = p_ino FOR UPDATE;
		IF v_one IS NULL THEN SET r_errno = 2; LEAVE body; END IF;              -- ENOENT
		SELECT ranges INTO v_cur FROM cairn_plock WHERE ino = p_ino AND sid = p_sid AND owner = p_owner;
		IF COALESCE(v_cur, '') <> p_old THEN SET r_errno = -2; LEAVE body; END IF; -- outdated guess
		IF p_type <> 2 THEN
			CALL cairn_lock_conflict(p_ino, p_sid, p_owner, p_type, p_start, p_end, v_conflict);
			IF v_conflict THEN SET r_errno = 11; LEAVE body; END IF;            -- EAGAIN
		END IF;
		IF LENGTH(p_new) = 0 THEN
			DELETE FROM cairn_plock WHERE ino = p_ino AND sid = p_sid AND owner = p_owner;
		ELSE
			INSERT INTO cairn_plock (ino, sid, owner, ranges) VALUES (p_ino, p_sid, p_owner, p_new)
				ON DUPLICATE KEY UPDATE ranges = VALUES(ranges);
		END IF;`,
		"r_errno"),
	mysqlProcedure("cairn_fallocate", "p_ino BIGINT, p_mode BIGINT, p_off BIGINT, p_end BIGINT, c_uid BIGINT, c_groups TEXT, "+
		"p_now BIGINT, p_capacity BIGINT", `
	DECLARE a_ftype, a_mode, a_uid, a_gid, a_rdev, a_nlink, a_length, a_atime, a_mtime, a_parent BIGINT;
	DECLARE v_len, v_delta BIGINT;`, `
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
			UPDATE cairn_usage SET space = space + v_delta WHERE id = 1;
		END IF;`,
		"r_errno, a_ftype, a_mode, a_uid, a_gid, a_rdev, a_nlink, v_len, a_atime, a_mtime, p_now, a_parent"),
)

// mysqlFunction is the statements that (re)create a stored function.
func mysqlFunction(name, params, returns, body string) []string {
	return []string{"DROP FUNCTION IF EXISTS " + name,
		"CREATE FUNCTION " + name + "(" + params + ") RETURNS " + returns + "\n" + body}
}

// mysqlProcedure is the statements that (re)create a stored procedure
// that runs body as one transaction and answers with one row, result
// (each missing value read as 0). body fails the operation by setting
// r_errno and leaving the block named body; an SQL error rolls back and
// is raised again, so that a deadlock reaches the engine's retry loop.
func mysqlProcedure(name, params, declare, body, result string) []string {
	cols := strings.Split(result, ", ")
	for i, c := range cols {
		cols[i] = "COALESCE(" + c + ", 0)"
	}
	return []string{"DROP PROCEDURE IF EXISTS " + name, "CREATE PROCEDURE " + name + "(" + params + ")\nBEGIN" + declare + `
	DECLARE r_errno INT DEFAULT 0;
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	START TRANSACTION;
	body: BEGIN` + body + `
	END;
	IF r_errno = 0 THEN COMMIT; ELSE ROLLBACK; END IF;
	SELECT ` + strings.Join(cols, ", ") + `;
END`}
}

func concat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}
