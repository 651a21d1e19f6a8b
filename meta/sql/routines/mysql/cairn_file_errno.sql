CREATE FUNCTION cairn_file_errno(n_ftype BIGINT, p_other INT)
RETURNS INT DETERMINISTIC NO SQL
RETURN CASE WHEN n_ftype IS NULL THEN 2 WHEN n_ftype = 2 THEN 21 -- ENOENT, EISDIR
		WHEN n_ftype <> 1 THEN p_other ELSE 0 END -- not a regular file
