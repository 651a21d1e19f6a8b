CREATE PROCEDURE cairn_setxattr(p_ino BIGINT, p_name VARBINARY(255), p_value MEDIUMBLOB, p_flags BIGINT,
	c_uid BIGINT, p_now BIGINT)
BEGIN
	DECLARE v_owner, v_one BIGINT;
	DECLARE r_errno INT DEFAULT 0;
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	START TRANSACTION;
	body: BEGIN
		SELECT uid INTO v_owner FROM cairn_node WHERE ino = p_ino FOR UPDATE;
		IF v_owner IS NULL THEN SET r_errno = 2; LEAVE body; END IF;            -- ENOENT
		IF c_uid <> 0 AND c_uid <> v_owner THEN SET r_errno = 1; LEAVE body; END IF; -- EPERM
		IF p_flags <> 0 THEN
			SELECT 1 INTO v_one FROM cairn_xattr WHERE ino = p_ino AND name = p_name;
			IF v_one IS NOT NULL AND p_flags & 1 <> 0 THEN SET r_errno = 17; LEAVE body; END IF; -- EEXIST
			IF v_one IS NULL AND p_flags & 2 <> 0 THEN SET r_errno = 61; LEAVE body; END IF;     -- ENODATA
		END IF;
		INSERT INTO cairn_xattr (ino, name, value) VALUES (p_ino, p_name, p_value)
			ON DUPLICATE KEY UPDATE value = VALUES(value);
		UPDATE cairn_node SET ctime = p_now WHERE ino = p_ino;
	END;
	IF r_errno = 0 THEN COMMIT; ELSE ROLLBACK; END IF;
	SELECT COALESCE(r_errno, 0);
END
