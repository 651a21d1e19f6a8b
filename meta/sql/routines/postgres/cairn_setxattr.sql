CREATE OR REPLACE FUNCTION cairn_setxattr(p_ino bigint, p_name bytea, p_value bytea, p_flags bigint,
	c_uid bigint, p_now bigint)
RETURNS TABLE (r_errno int)
LANGUAGE plpgsql AS $$
DECLARE
	owner bigint;
	present boolean;
BEGIN
	SELECT uid INTO owner FROM cairn_node WHERE ino = p_ino FOR UPDATE;
	IF NOT FOUND THEN r_errno := 2; RETURN NEXT; RETURN; END IF;          -- ENOENT
	IF c_uid <> 0 AND c_uid <> owner THEN r_errno := 1; RETURN NEXT; RETURN; END IF; -- EPERM
	IF p_flags <> 0 THEN
		present := EXISTS (SELECT 1 FROM cairn_xattr WHERE ino = p_ino AND name = p_name);
		IF present AND p_flags & 1 <> 0 THEN r_errno := 17; RETURN NEXT; RETURN; END IF;     -- EEXIST
		IF NOT present AND p_flags & 2 <> 0 THEN r_errno := 61; RETURN NEXT; RETURN; END IF; -- ENODATA
	END IF;
	INSERT INTO cairn_xattr AS x (ino, name, value) VALUES (p_ino, p_name, p_value)
		ON CONFLICT (ino, name) DO UPDATE SET value = excluded.value;
	UPDATE cairn_node SET ctime = p_now WHERE ino = p_ino;
	r_errno := 0;
	RETURN NEXT;
END
$$
