CREATE OR REPLACE FUNCTION cairn_may_delete(d_mode bigint, d_uid bigint, d_gid bigint, v_uid bigint,
	c_uid bigint, c_groups text) RETURNS int
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	err int;
BEGIN
	err := cairn_access(2, d_mode, d_uid, d_gid, c_uid, c_groups, 3);
	IF err <> 0 THEN RETURN err; END IF;
	IF d_mode & 512 <> 0 AND c_uid <> 0 AND c_uid <> d_uid AND c_uid <> v_uid THEN RETURN 1; END IF; -- EPERM
	RETURN 0;
END
$$
