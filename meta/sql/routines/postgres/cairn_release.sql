CREATE OR REPLACE FUNCTION cairn_release(p_sid bigint, p_ino bigint)
RETURNS TABLE (r_errno int)
LANGUAGE plpgsql AS $$
DECLARE
	owner bigint;
	a cairn_node%ROWTYPE;
BEGIN
	r_errno := 0;
	SELECT sid INTO owner FROM cairn_orphan WHERE ino = p_ino FOR UPDATE;
	IF NOT FOUND OR owner <> p_sid THEN RETURN NEXT; RETURN; END IF;
	DELETE FROM cairn_orphan WHERE ino = p_ino;
	SELECT * INTO a FROM cairn_node WHERE ino = p_ino FOR UPDATE;
	IF NOT FOUND OR a.nlink > 0 THEN RETURN NEXT; RETURN; END IF;
	PERFORM cairn_delete_inode(p_ino, a.ftype, a.length);
	RETURN NEXT;
END
$$
