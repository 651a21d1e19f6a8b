CREATE FUNCTION cairn_space_errno(p_delta BIGINT, p_capacity BIGINT)
RETURNS INT NOT DETERMINISTIC READS SQL DATA
RETURN IF(p_capacity > 0 AND p_delta > 0
		AND (SELECT SUM(space) FROM cairn_usage) + p_delta > p_capacity, 28, 0) -- ENOSPC
