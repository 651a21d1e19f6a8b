CREATE OR REPLACE FUNCTION cairn_search(n_ftype bigint, n_mode bigint, n_uid bigint, n_gid bigint,
	c_uid bigint, c_groups text) RETURNS int
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	-- The checks of a directory a name is looked up in, given its row (all
	-- NULL when it is missing): it exists, is a directory, may be searched.
	IF n_ftype IS NULL THEN RETURN 2; END IF;                             -- ENOENT
	IF n_ftype <> 2 THEN RETURN 20; END IF;                               -- ENOTDIR
	RETURN cairn_access(n_ftype, n_mode, n_uid, n_gid, c_uid, c_groups, 1);
END
$$
