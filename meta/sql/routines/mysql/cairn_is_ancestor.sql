CREATE FUNCTION cairn_is_ancestor(p_dir BIGINT, p_ino BIGINT)
RETURNS INT NOT DETERMINISTIC READS SQL DATA
BEGIN
	DECLARE v_cur BIGINT DEFAULT p_ino;
	DECLARE v_next BIGINT;
	DECLARE v_i INT DEFAULT 0;
	WHILE v_i < 65536 DO
		IF v_cur = p_dir THEN RETURN 1; END IF;
		IF v_cur = 1 THEN RETURN 0; END IF;
		SET v_next = NULL;
		SELECT parent INTO v_next FROM cairn_node WHERE ino = v_cur;
		IF v_next IS NULL THEN RETURN 0; END IF;
		SET v_cur = v_next, v_i = v_i + 1;
	END WHILE;
	RETURN -1; -- a parent chain too long: the tree may hold a loop
END
