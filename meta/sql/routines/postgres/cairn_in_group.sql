CREATE OR REPLACE FUNCTION cairn_in_group(c_groups text, p_gid bigint) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$ SELECT strpos(c_groups, ',' || p_gid::text || ',') > 0 $$
