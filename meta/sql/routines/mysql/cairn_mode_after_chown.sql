CREATE FUNCTION cairn_mode_after_chown(n_ftype BIGINT, n_mode BIGINT, n_gid BIGINT, c_uid BIGINT,
	c_groups TEXT)
RETURNS BIGINT DETERMINISTIC NO SQL
BEGIN
	-- meta.ModeAfterChown: a non-directory (2) whose owner or group is
	-- set loses setuid (2048), root's chown included, and setgid (1024)
	-- when it is group-executable (8) or the caller is neither root nor
	-- in its group (n_gid: the group before the change).
	DECLARE v_mode BIGINT DEFAULT n_mode;
	IF n_ftype = 2 THEN RETURN v_mode; END IF;
	SET v_mode = v_mode & ~2048;
	IF v_mode & 1024 <> 0 AND (v_mode & 8 <> 0 OR (c_uid <> 0 AND NOT cairn_in_group(c_groups, n_gid))) THEN
		SET v_mode = v_mode & ~1024;
	END IF;
	RETURN v_mode;
END
