CREATE OR REPLACE FUNCTION cairn_mode_after_chown(n_ftype bigint, n_mode bigint, n_gid bigint,
	c_uid bigint, c_groups text) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	m bigint := n_mode;
BEGIN
	-- meta.ModeAfterChown: a non-directory (2) whose owner or group is
	-- set loses setuid (2048), root's chown included, and setgid (1024)
	-- when it is group-executable (8) or the caller is neither root nor
	-- in its group (n_gid: the group before the change).
	IF n_ftype = 2 THEN RETURN m; END IF;
	m := m & ~2048::bigint;
	IF m & 1024 <> 0 AND (m & 8 <> 0 OR (c_uid <> 0 AND NOT cairn_in_group(c_groups, n_gid))) THEN
		m := m & ~1024::bigint;
	END IF;
	RETURN m;
END
$$
