CREATE PROCEDURE cairn_setlk(p_ino BIGINT, p_sid BIGINT, p_owner BIGINT, p_type BIGINT, p_start VARBINARY(8),
	p_end VARBINARY(8), p_old LONGBLOB, p_new LONGBLOB)
BEGIN
	DECLARE v_one BIGINT;
	DECLARE v_cur LONGBLOB;
	DECLARE v_conflict BOOLEAN DEFAULT FALSE;
	DECLARE r_errno INT DEFAULT 0;
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	START TRANSACTION;
	body: BEGIN
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
		END IF;
	END;
	IF r_errno = 0 THEN COMMIT; ELSE ROLLBACK; END IF;
	SELECT COALESCE(r_errno, 0);
END
