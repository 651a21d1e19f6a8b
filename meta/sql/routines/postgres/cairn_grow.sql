CREATE OR REPLACE FUNCTION cairn_grow(p_old bigint, p_new bigint) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $$ SELECT (p_new + 4095) / 4096 * 4096 - (p_old + 4095) / 4096 * 4096 $$
