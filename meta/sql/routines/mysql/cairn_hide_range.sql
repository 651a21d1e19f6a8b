CREATE PROCEDURE cairn_hide_range(p_ino BIGINT, p_off BIGINT, p_end BIGINT)
BEGIN
	-- data.go hideRange, in its caller's transaction: a hole record over
	-- [p_off, p_end) appended to each chunk that exists there, so that
	-- those bytes read as zeros.
	IF p_off < p_end THEN
		UPDATE cairn_chunk SET slices = CONCAT(slices,
			UNHEX(LPAD(HEX(GREATEST(p_off, idx * 67108864) - idx * 67108864), 8, '0')), UNHEX(REPEAT('0', 16)),
			UNHEX(LPAD(HEX(LEAST(p_end, (idx + 1) * 67108864) - GREATEST(p_off, idx * 67108864)), 8, '0')), UNHEX(REPEAT('0', 8)),
			UNHEX(LPAD(HEX(LEAST(p_end, (idx + 1) * 67108864) - GREATEST(p_off, idx * 67108864)), 8, '0')))
		WHERE ino = p_ino AND idx BETWEEN p_off DIV 67108864 AND (p_end - 1) DIV 67108864;
	END IF;
END
