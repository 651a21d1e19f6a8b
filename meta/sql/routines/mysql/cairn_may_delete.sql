CREATE FUNCTION cairn_may_delete(d_mode BIGINT, d_uid BIGINT, d_gid BIGINT, v_uid BIGINT, c_uid BIGINT,
	c_groups TEXT)
RETURNS INT DETERMINISTIC NO SQL
BEGIN
	DECLARE v_err INT DEFAULT cairn_access(2, d_mode, d_uid, d_gid, c_uid, c_groups, 3);
	IF v_err <> 0 THEN RETURN v_err; END IF;
	IF d_mode & 512 <> 0 AND c_uid <> 0 AND c_uid <> d_uid AND c_uid <> v_uid THEN RETURN 1; END IF; -- EPERM
	RETURN 0;
END
