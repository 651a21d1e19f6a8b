CREATE FUNCTION cairn_search(n_ftype BIGINT, n_mode BIGINT, n_uid BIGINT, n_gid BIGINT, c_uid BIGINT,
	c_groups TEXT)
RETURNS INT DETERMINISTIC NO SQL
BEGIN
	-- The checks of a directory a name is looked up in, given its row (all
	-- NULL when it is missing): it exists, is a directory, may be searched.
	IF n_ftype IS NULL THEN RETURN 2; END IF;                               -- ENOENT
	IF n_ftype <> 2 THEN RETURN 20; END IF;                                 -- ENOTDIR
	RETURN cairn_access(n_ftype, n_mode, n_uid, n_gid, c_uid, c_groups, 1);
END
