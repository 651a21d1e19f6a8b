CREATE PROCEDURE cairn_flock(p_ino BIGINT, p_sid BIGINT, p_owner BIGINT, p_type BIGINT)
BEGIN
	DECLARE v_one BIGINT;
	DECLARE r_errno INT DEFAULT 0;
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	START TRANSACTION;
	body: BEGIN
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
			ON DUPLICATE KEY UPDATE ltype = VALUES(ltype);
	END;
	IF r_errno = 0 THEN COMMIT; ELSE ROLLBACK; END IF;
	SELECT COALESCE(r_errno, 0);
END
