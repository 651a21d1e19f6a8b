CREATE OR REPLACE FUNCTION cairn_space_errno(p_delta bigint, p_capacity bigint) RETURNS int
LANGUAGE sql STABLE AS $$
	SELECT CASE WHEN p_capacity > 0 AND p_delta > 0
		AND (SELECT sum(space) FROM cairn_usage) + p_delta > p_capacity THEN 28 ELSE 0 END -- ENOSPC
$$
