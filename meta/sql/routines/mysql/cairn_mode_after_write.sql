CREATE FUNCTION cairn_mode_after_write(n_ftype BIGINT, n_mode BIGINT, n_gid BIGINT, c_uid BIGINT,
	c_groups TEXT)
RETURNS BIGINT DETERMINISTIC NO SQL
BEGIN
	-- meta.ModeAfterWrite: a regular file (1) written or truncated by
	-- anyone but root loses setuid (2048), and setgid (1024) when it is
	-- group-executable (8) or the caller is not in its group.
	DECLARE v_mode BIGINT DEFAULT n_mode;
	IF n_ftype <> 1 OR c_uid = 0 THEN RETURN v_mode; END IF;
	SET v_mode = v_mode & ~2048;
	IF v_mode & 1024 <> 0 AND (v_mode & 8 <> 0 OR NOT cairn_in_group(c_groups, n_gid)) THEN
		SET v_mode = v_mode & ~1024;
	END IF;
	RETURN v_mode;
END
