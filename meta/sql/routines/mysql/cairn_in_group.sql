CREATE FUNCTION cairn_in_group(c_groups TEXT, p_gid BIGINT)
RETURNS BOOLEAN DETERMINISTIC NO SQL
RETURN LOCATE(CONCAT(',', p_gid, ','), c_groups) > 0
