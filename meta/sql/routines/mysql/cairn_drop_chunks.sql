CREATE PROCEDURE cairn_drop_chunks(p_ino BIGINT, p_from BIGINT)
BEGIN
	-- data.go dropChunks, in its caller's transaction: the slices of the
	-- chunks from p_from on lose a reference each (records of 24 bytes: pos,
	-- id, size, off, len, big endian); those left with none become dead.
	-- The chunks are walked one row at a time along the primary key, not
	-- through a cursor: MariaDB materializes a cursor over a BLOB column in
	-- an on-disk Aria temporary table, a file made and deleted per call.
	DECLARE v_done BOOLEAN DEFAULT FALSE;
	DECLARE v_slices LONGBLOB;
	DECLARE v_idx BIGINT DEFAULT p_from - 1;
	DECLARE v_i, v_n, v_id, v_size BIGINT;
	DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_done = TRUE;
	chunks: LOOP
		SELECT idx, slices INTO v_idx, v_slices FROM cairn_chunk WHERE ino = p_ino AND idx > v_idx ORDER BY idx LIMIT 1;
		IF v_done THEN LEAVE chunks; END IF;
		SET v_i = 0, v_n = LENGTH(v_slices) DIV 24;
		WHILE v_i < v_n DO
			SET v_id = CAST(CONV(HEX(SUBSTRING(v_slices, v_i * 24 + 5, 8)), 16, 10) AS UNSIGNED);
			SET v_size = CAST(CONV(HEX(SUBSTRING(v_slices, v_i * 24 + 13, 4)), 16, 10) AS UNSIGNED);
			IF v_id <> 0 THEN
				UPDATE cairn_sliceref SET refs = refs - 1 WHERE id = v_id;
				IF ROW_COUNT() = 0 THEN
					INSERT IGNORE INTO cairn_dead (id, size) VALUES (v_id, v_size); -- already dead, or never counted
				ELSE
					DELETE FROM cairn_sliceref WHERE id = v_id AND refs <= 0;
					IF ROW_COUNT() > 0 THEN
						INSERT INTO cairn_dead (id, size) VALUES (v_id, v_size);
					END IF;
				END IF;
			END IF;
			SET v_i = v_i + 1;
		END WHILE;
	END LOOP;
	DELETE FROM cairn_chunk WHERE ino = p_ino AND idx >= p_from;
END
