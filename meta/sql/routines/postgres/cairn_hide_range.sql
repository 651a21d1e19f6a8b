CREATE OR REPLACE FUNCTION cairn_hide_range(p_ino bigint, p_off bigint, p_end bigint) RETURNS void
LANGUAGE sql AS $$
	-- data.go hideRange: a hole record over [p_off, p_end) appended to
	-- each chunk that exists there, so that those bytes read as zeros.
	UPDATE cairn_chunk SET slices = slices
		|| int4send((greatest(p_off, idx * 67108864) - idx * 67108864)::int) || int8send(0::bigint)
		|| int4send((least(p_end, (idx + 1) * 67108864) - greatest(p_off, idx * 67108864))::int) || int4send(0)
		|| int4send((least(p_end, (idx + 1) * 67108864) - greatest(p_off, idx * 67108864))::int)
	WHERE ino = p_ino AND p_off < p_end AND idx >= p_off / 67108864 AND idx <= (p_end - 1) / 67108864
$$
