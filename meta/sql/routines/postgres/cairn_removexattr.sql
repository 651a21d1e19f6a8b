CREATE OR REPLACE FUNCTION cairn_removexattr(p_ino bigint, p_name bytea, c_uid bigint, p_now bigint)
RETURNS TABLE (r_errno int)
LANGUAGE plpgsql AS $$
DECLARE
	owner bigint;
BEGIN
	SELECT uid INTO owner FROM cairn_node WHERE ino = p_ino FOR UPDATE;
	IF NOT FOUND THEN r_errno := 2; RETURN NEXT; RETURN; END IF;          -- ENOENT
	IF c_uid <> 0 AND c_uid <> owner THEN r_errno := 1; RETURN NEXT; RETURN; END IF; -- EPERM
	DELETE FROM cairn_xattr WHERE ino = p_ino AND name = p_name;
	IF NOT FOUND THEN r_errno := 61; RETURN NEXT; RETURN; END IF;         -- ENODATA
	UPDATE cairn_node SET ctime = p_now WHERE ino = p_ino;
	r_errno := 0;
	RETURN NEXT;
END
$$
