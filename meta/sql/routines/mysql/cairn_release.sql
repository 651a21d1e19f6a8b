CREATE PROCEDURE cairn_release(p_sid BIGINT, p_ino BIGINT)
BEGIN
	DECLARE v_owner, a_ftype, a_nlink, a_length BIGINT;
	DECLARE r_errno INT DEFAULT 0;
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	START TRANSACTION;
	body: BEGIN
		SELECT sid INTO v_owner FROM cairn_orphan WHERE ino = p_ino FOR UPDATE;
		IF v_owner IS NULL OR v_owner <> p_sid THEN LEAVE body; END IF;
		DELETE FROM cairn_orphan WHERE ino = p_ino;
		SELECT ftype, nlink, length INTO a_ftype, a_nlink, a_length FROM cairn_node WHERE ino = p_ino FOR UPDATE;
		IF a_ftype IS NULL OR a_nlink > 0 THEN LEAVE body; END IF;
		CALL cairn_delete_inode(p_ino, a_ftype, a_length);
	END;
	IF r_errno = 0 THEN COMMIT; ELSE ROLLBACK; END IF;
	SELECT COALESCE(r_errno, 0);
END
