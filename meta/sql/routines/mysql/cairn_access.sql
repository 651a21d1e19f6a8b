CREATE FUNCTION cairn_access(n_ftype BIGINT, n_mode BIGINT, n_uid BIGINT, n_gid BIGINT, c_uid BIGINT,
	c_groups TEXT, p_mask BIGINT)
RETURNS INT DETERMINISTIC NO SQL
BEGIN
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
END
