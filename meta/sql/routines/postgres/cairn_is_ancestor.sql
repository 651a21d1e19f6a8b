CREATE OR REPLACE FUNCTION cairn_is_ancestor(p_dir bigint, p_ino bigint) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
	cur bigint := p_ino;
BEGIN
	FOR i IN 1..65536 LOOP
		IF cur = p_dir THEN RETURN 1; END IF;
		IF cur = 1 OR cur IS NULL THEN RETURN 0; END IF;
		SELECT parent INTO cur FROM cairn_node WHERE ino = cur;
	END LOOP;
	RETURN -1; -- a parent chain too long: the tree may hold a loop
END
$$
