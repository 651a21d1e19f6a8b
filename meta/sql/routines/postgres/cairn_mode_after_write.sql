CREATE OR REPLACE FUNCTION cairn_mode_after_write(n_ftype bigint, n_mode bigint, n_gid bigint,
	c_uid bigint, c_groups text) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	m bigint := n_mode;
BEGIN
	-- meta.ModeAfterWrite: a regular file (1) written or truncated by
	-- anyone but root loses setuid (2048), and setgid (1024) when it is
	-- group-executable (8) or the caller is not in its group.
	IF n_ftype <> 1 OR c_uid = 0 THEN RETURN m; END IF;
	m := m & ~2048::bigint;
	IF m & 1024 <> 0 AND (m & 8 <> 0 OR NOT cairn_in_group(c_groups, n_gid)) THEN
		m := m & ~1024::bigint;
	END IF;
	RETURN m;
END
$$
