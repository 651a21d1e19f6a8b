package sql

// mysqlProcedures are stored procedures Init installs on MySQL/MariaDB.
// cairn_write makes Write one round trip: a CALL that runs its own
// transaction (a procedure's statements would otherwise each commit on
// their own) and answers with one row, as PostgreSQL's cairn_write
// function does. An error inside rolls back and is raised again, so that
// a deadlock reaches the engine's retry loop.
var mysqlProcedures = []string{"DROP PROCEDURE IF EXISTS cairn_write", `
CREATE PROCEDURE cairn_write(p_ino BIGINT, p_idx BIGINT, p_rec LONGBLOB, p_end BIGINT,
	p_id BIGINT, p_size BIGINT, p_mtime BIGINT, p_capacity BIGINT)
BEGIN
	DECLARE v_ftype, v_mode, v_uid, v_gid, v_rdev, v_nlink, v_length, v_atime, v_parent BIGINT;
	DECLARE new_len, delta, used, cnt BIGINT;
	DECLARE r_errno INT DEFAULT 0;
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	START TRANSACTION;
	body: BEGIN
		SELECT ftype, mode, uid, gid, rdev, nlink, length, atime, parent
			INTO v_ftype, v_mode, v_uid, v_gid, v_rdev, v_nlink, v_length, v_atime, v_parent
			FROM cairn_node WHERE ino = p_ino FOR UPDATE;
		IF v_ftype IS NULL THEN SET r_errno = 2; LEAVE body; END IF;   -- ENOENT
		IF v_ftype = 2 THEN SET r_errno = 21; LEAVE body; END IF;      -- EISDIR
		IF v_ftype <> 1 THEN SET r_errno = 22; LEAVE body; END IF;     -- EINVAL
		SET new_len = GREATEST(v_length, p_end);
		SET delta = (new_len + 4095) DIV 4096 * 4096 - (v_length + 4095) DIV 4096 * 4096;
		IF p_capacity > 0 AND delta > 0 THEN
			SELECT space INTO used FROM cairn_usage WHERE id = 1;
			IF used + delta > p_capacity THEN SET r_errno = 28; LEAVE body; END IF; -- ENOSPC
		END IF;
		INSERT INTO cairn_chunk (ino, idx, slices) VALUES (p_ino, p_idx, p_rec)
			ON DUPLICATE KEY UPDATE slices = CONCAT(slices, VALUES(slices));
		SELECT LENGTH(slices) DIV 24 INTO cnt FROM cairn_chunk WHERE ino = p_ino AND idx = p_idx;
		IF p_id <> 0 THEN
			INSERT INTO cairn_sliceref (id, size, refs) VALUES (p_id, p_size, 1)
				ON DUPLICATE KEY UPDATE refs = refs + 1;
		END IF;
		UPDATE cairn_node SET length = new_len, mtime = p_mtime, ctime = p_mtime WHERE ino = p_ino;
		IF delta <> 0 THEN
			UPDATE cairn_usage SET space = space + delta WHERE id = 1;
		END IF;
	END;
	IF r_errno = 0 THEN COMMIT; ELSE ROLLBACK; END IF;
	SELECT r_errno, COALESCE(cnt, 0), COALESCE(v_ftype, 0), COALESCE(v_mode, 0), COALESCE(v_uid, 0),
		COALESCE(v_gid, 0), COALESCE(v_rdev, 0), COALESCE(v_nlink, 0), COALESCE(new_len, 0),
		COALESCE(v_atime, 0), p_mtime, p_mtime, COALESCE(v_parent, 0);
END`}

// mysqlWriteCall calls cairn_write.
const mysqlWriteCall = "CALL cairn_write(?, ?, ?, ?, ?, ?, ?, ?)"
