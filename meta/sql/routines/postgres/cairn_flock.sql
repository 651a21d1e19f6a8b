CREATE OR REPLACE FUNCTION cairn_flock(p_ino bigint, p_sid bigint, p_owner bigint, p_type bigint)
RETURNS TABLE (r_errno int)
LANGUAGE plpgsql AS $$
BEGIN
	r_errno := 0;
	IF p_type = 2 THEN                                                    -- unlock
		DELETE FROM cairn_flock WHERE ino = p_ino AND sid = p_sid AND owner = p_owner;
		RETURN NEXT; RETURN;
	END IF;
	-- The inode's row guards its lock table: two first lockers must not
	-- both see it empty.
	PERFORM 1 FROM cairn_node WHERE ino = p_ino FOR UPDATE;
	IF NOT FOUND THEN r_errno := 2; RETURN NEXT; RETURN; END IF;          -- ENOENT
	IF EXISTS (SELECT 1 FROM cairn_flock WHERE ino = p_ino AND NOT (sid = p_sid AND owner = p_owner)
		AND (p_type = 1 OR ltype = 1)) THEN
		r_errno := 11; RETURN NEXT; RETURN;                               -- EAGAIN
	END IF;
	INSERT INTO cairn_flock (ino, sid, owner, ltype) VALUES (p_ino, p_sid, p_owner, p_type)
		ON CONFLICT (ino, sid, owner) DO UPDATE SET ltype = excluded.ltype;
	RETURN NEXT;
END
$$
