CREATE OR REPLACE FUNCTION cairn_drop_chunks(p_ino bigint, p_from bigint) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	r record;
	left_refs bigint;
BEGIN
	-- data.go dropChunks: the slices of the chunks from p_from on lose a
	-- reference each (records of 24 bytes: pos, id, size, off, len, big
	-- endian), in id order; those left with none become dead.
	FOR r IN
		SELECT s.id, count(*) AS n, max(s.size) AS size FROM (
			SELECT ('x' || encode(substring(c.slices FROM g * 24 + 5 FOR 8), 'hex'))::bit(64)::bigint AS id,
				('x' || encode(substring(c.slices FROM g * 24 + 13 FOR 4), 'hex'))::bit(32)::int::bigint AS size
			FROM cairn_chunk c, generate_series(0, octet_length(c.slices) / 24 - 1) g
			WHERE c.ino = p_ino AND c.idx >= p_from) s
		WHERE s.id <> 0 GROUP BY s.id ORDER BY s.id
	LOOP
		UPDATE cairn_sliceref SET refs = refs - r.n WHERE id = r.id RETURNING refs INTO left_refs;
		IF FOUND AND left_refs > 0 THEN CONTINUE; END IF;
		DELETE FROM cairn_sliceref WHERE id = r.id;
		INSERT INTO cairn_dead (id, size) VALUES (r.id, r.size);
	END LOOP;
	DELETE FROM cairn_chunk WHERE ino = p_ino AND idx >= p_from;
END
$$
