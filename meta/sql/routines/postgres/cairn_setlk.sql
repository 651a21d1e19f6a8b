CREATE OR REPLACE FUNCTION cairn_setlk(p_ino bigint, p_sid bigint, p_owner bigint, p_type bigint,
	p_start bytea, p_end bytea, p_old bytea, p_new bytea)
RETURNS TABLE (r_errno int)
LANGUAGE plpgsql AS $$
DECLARE
	cur bytea;
BEGIN
	-- locks.go SetLk. The caller computed p_new, this owner's ranges with
	-- the lock applied, from p_old; they must still be the stored ones.
	-- Ranges are records of 24 bytes: type (4), start (8), end (8), pid
	-- (4), big endian, so bytes compare as the unsigned numbers do.
	r_errno := 0;
	PERFORM 1 FROM cairn_node WHERE ino = p_ino FOR UPDATE;
	IF NOT FOUND THEN r_errno := 2; RETURN NEXT; RETURN; END IF;          -- ENOENT
	SELECT ranges INTO cur FROM cairn_plock WHERE ino = p_ino AND sid = p_sid AND owner = p_owner;
	IF coalesce(cur, ''::bytea) <> p_old THEN r_errno := -2; RETURN NEXT; RETURN; END IF; -- outdated guess
	IF p_type <> 2 AND EXISTS (
		SELECT 1 FROM cairn_plock l, generate_series(0, octet_length(l.ranges) / 24 - 1) g
		WHERE l.ino = p_ino AND NOT (l.sid = p_sid AND l.owner = p_owner)
			AND substring(l.ranges FROM g * 24 + 13 FOR 8) >= p_start
			AND substring(l.ranges FROM g * 24 + 5 FOR 8) <= p_end
			AND (p_type = 1 OR get_byte(l.ranges, g * 24 + 3) = 1)) THEN
		r_errno := 11; RETURN NEXT; RETURN;                               -- EAGAIN
	END IF;
	IF octet_length(p_new) = 0 THEN
		DELETE FROM cairn_plock WHERE ino = p_ino AND sid = p_sid AND owner = p_owner;
	ELSE
		INSERT INTO cairn_plock (ino, sid, owner, ranges) VALUES (p_ino, p_sid, p_owner, p_new)
			ON CONFLICT (ino, sid, owner) DO UPDATE SET ranges = excluded.ranges;
	END IF;
	RETURN NEXT;
END
$$
