CREATE PROCEDURE cairn_lock_conflict(p_ino BIGINT, p_sid BIGINT, p_owner BIGINT, p_type BIGINT,
	p_start VARBINARY(8), p_end VARBINARY(8), OUT r_conflict BOOLEAN)
BEGIN
	-- Whether a byte-range lock of p_type over [p_start, p_end] conflicts
	-- with another owner's (locks.go conflicting). Ranges are records of 24
	-- bytes: type (4), start (8), end (8), pid (4), big endian, so bytes
	-- compare as the numbers do.
	-- The other owners' rows are walked one at a time along the primary
	-- key, not through a cursor: MariaDB materializes a cursor over a BLOB
	-- column in an on-disk Aria temporary table, a file made and deleted
	-- per call.
	DECLARE v_ranges LONGBLOB;
	DECLARE v_i, v_n BIGINT;
	DECLARE v_sid, v_owner BIGINT; -- the row read last; owners take all 64 bits
	DECLARE v_done BOOLEAN DEFAULT FALSE;
	DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_done = TRUE;
	SET r_conflict = FALSE;
	scan: LOOP
		SELECT sid, owner, ranges INTO v_sid, v_owner, v_ranges FROM cairn_plock
			WHERE ino = p_ino AND (v_sid IS NULL OR sid > v_sid OR sid = v_sid AND owner > v_owner)
				AND NOT (sid = p_sid AND owner = p_owner)
			ORDER BY sid, owner LIMIT 1;
		IF v_done OR r_conflict THEN LEAVE scan; END IF;
		SET v_i = 0, v_n = LENGTH(v_ranges) DIV 24;
		WHILE v_i < v_n AND NOT r_conflict DO
			SET r_conflict = SUBSTRING(v_ranges, v_i * 24 + 13, 8) >= p_start AND SUBSTRING(v_ranges, v_i * 24 + 5, 8) <= p_end
				AND (p_type = 1 OR ASCII(SUBSTRING(v_ranges, v_i * 24 + 4, 1)) = 1);
			SET v_i = v_i + 1;
		END WHILE;
	END LOOP;
END
