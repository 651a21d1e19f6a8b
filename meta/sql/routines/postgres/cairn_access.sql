CREATE OR REPLACE FUNCTION cairn_access(n_ftype bigint, n_mode bigint, n_uid bigint, n_gid bigint,
	c_uid bigint, c_groups text, p_mask bigint) RETURNS int
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	bits bigint;
BEGIN
	IF p_mask = 0 THEN RETURN 0; END IF;
	IF c_uid = 0 THEN
		IF p_mask & 1 <> 0 AND n_ftype <> 2 AND n_mode & 73 = 0 THEN RETURN 13; END IF; -- EACCES
		RETURN 0;
	END IF;
	IF c_uid = n_uid THEN
		bits := (n_mode >> 6) & 7;
	ELSIF cairn_in_group(c_groups, n_gid) THEN
		bits := (n_mode >> 3) & 7;
	ELSE
		bits := n_mode & 7;
	END IF;
	IF bits & p_mask <> p_mask THEN RETURN 13; END IF;
	RETURN 0;
END
$$
