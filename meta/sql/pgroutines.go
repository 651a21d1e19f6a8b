package sql

// pgRoutines are the PL/pgSQL functions that make PostgreSQL's namespace
// operations one round trip each: one statement in autocommit mode, which
// the server runs as one transaction. The permission rules of meta/perm.go
// run inside them (cairn_access, cairn_may_delete, and InitAttr in
// cairn_create); routines_test.go compares them with the Go rules. Each
// checks in the order the general transaction (namespace.go, rename.go)
// checks, so that both fail with the same errno.
//
// Every statement of a VOLATILE function takes a new snapshot at READ
// COMMITTED, so a read after a row lock sees what the lock's previous
// holder committed (see lockDirEntry).
var pgRoutines = []string{`
CREATE OR REPLACE FUNCTION cairn_write(p_ino bigint, p_idx bigint, p_rec bytea, p_end bigint,
	p_id bigint, p_size bigint, p_mtime bigint, p_capacity bigint)
RETURNS TABLE (r_errno int, r_count bigint, r_ftype bigint, r_mode bigint, r_uid bigint, r_gid bigint,
	r_rdev bigint, r_nlink bigint, r_length bigint, r_atime bigint, r_mtime bigint, r_ctime bigint, r_parent bigint)
LANGUAGE plpgsql AS $$
DECLARE
	n cairn_node%ROWTYPE;
	new_len bigint;
	delta bigint;
BEGIN
	SELECT * INTO n FROM cairn_node WHERE cairn_node.ino = p_ino FOR UPDATE;
	r_errno := cairn_file_errno(n.ftype, 22);
	IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	new_len := greatest(n.length, p_end);
	delta := cairn_grow(n.length, new_len);
	r_errno := cairn_space_errno(delta, p_capacity);
	IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	INSERT INTO cairn_chunk AS c (ino, idx, slices) VALUES (p_ino, p_idx, p_rec)
		ON CONFLICT (ino, idx) DO UPDATE SET slices = c.slices || excluded.slices
		RETURNING octet_length(c.slices) / 24 INTO r_count;
	IF p_id <> 0 THEN
		INSERT INTO cairn_sliceref AS r (id, size, refs) VALUES (p_id, p_size, 1)
			ON CONFLICT (id) DO UPDATE SET refs = r.refs + 1;
	END IF;
	UPDATE cairn_node SET length = new_len, mtime = p_mtime, ctime = p_mtime WHERE cairn_node.ino = p_ino;
	IF delta <> 0 THEN
		UPDATE cairn_usage SET space = space + delta WHERE id = 1;
	END IF;
	r_errno := 0;
	r_ftype := n.ftype; r_mode := n.mode; r_uid := n.uid; r_gid := n.gid; r_rdev := n.rdev;
	r_nlink := n.nlink; r_length := new_len; r_atime := n.atime; r_mtime := p_mtime; r_ctime := p_mtime;
	r_parent := n.parent;
	RETURN NEXT;
END
$$`, `
CREATE OR REPLACE FUNCTION cairn_file_errno(n_ftype bigint, p_other int) RETURNS int
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN n_ftype IS NULL THEN 2 WHEN n_ftype = 2 THEN 21  -- ENOENT, EISDIR
		WHEN n_ftype <> 1 THEN p_other ELSE 0 END                     -- not a regular file
$$`, `
CREATE OR REPLACE FUNCTION cairn_grow(p_old bigint, p_new bigint) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $$ SELECT (p_new + 4095) / 4096 * 4096 - (p_old + 4095) / 4096 * 4096 $$`, `
CREATE OR REPLACE FUNCTION cairn_space_errno(p_delta bigint, p_capacity bigint) RETURNS int
LANGUAGE sql STABLE AS $$
	SELECT CASE WHEN p_capacity > 0 AND p_delta > 0
		AND (SELECT space FROM cairn_usage WHERE id = 1) + p_delta > p_capacity THEN 28 ELSE 0 END -- ENOSPC
$$`, `
CREATE OR REPLACE FUNCTION cairn_in_group(c_groups text, p_gid bigint) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$ SELECT strpos(c_groups, ',' || p_gid::text || ',') > 0 $$`, `
CREATE OR REPLACE FUNCTION cairn_access(n_ftype bigint, n_mode bigint, n_uid bigint, n_gid bigint,
	c_uid bigint, c_groups text, p_mask bigint) RETURNS int
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	bits bigint;
BEGIN
	IF p_mask = 0 THEN RETURN 0; END IF;
	IF c_uid = 0 THEN
		IF p_mask & 1 <> 0 AND n_ftype <> 2 AND n_mode & 73 = 0 THEN RETURN 13; END IF; -- EACCES
		RETURN 0;
	END IF;
	IF c_uid = n_uid THEN
		bits := (n_mode >> 6) & 7;
	ELSIF cairn_in_group(c_groups, n_gid) THEN
		bits := (n_mode >> 3) & 7;
	ELSE
		bits := n_mode & 7;
	END IF;
	IF bits & p_mask <> p_mask THEN RETURN 13; END IF;
	RETURN 0;
END
$$`, `
CREATE OR REPLACE FUNCTION cairn_may_delete(d_mode bigint, d_uid bigint, d_gid bigint, v_uid bigint,
	c_uid bigint, c_groups text) RETURNS int
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	err int;
BEGIN
	err := cairn_access(2, d_mode, d_uid, d_gid, c_uid, c_groups, 3);
	IF err <> 0 THEN RETURN err; END IF;
	IF d_mode & 512 <> 0 AND c_uid <> 0 AND c_uid <> d_uid AND c_uid <> v_uid THEN RETURN 1; END IF; -- EPERM
	RETURN 0;
END
$$`, `
CREATE OR REPLACE FUNCTION cairn_search(n_ftype bigint, n_mode bigint, n_uid bigint, n_gid bigint,
	c_uid bigint, c_groups text) RETURNS int
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	-- The checks of a directory a name is looked up in, given its row (all
	-- NULL when it is missing): it exists, is a directory, may be searched.
	IF n_ftype IS NULL THEN RETURN 2; END IF;                             -- ENOENT
	IF n_ftype <> 2 THEN RETURN 20; END IF;                               -- ENOTDIR
	RETURN cairn_access(n_ftype, n_mode, n_uid, n_gid, c_uid, c_groups, 1);
END
$$`, `
CREATE OR REPLACE FUNCTION cairn_lock_victim(p_parent bigint, p_name bytea, c_uid bigint, c_groups text,
	OUT r_errno int, OUT r_target bigint)
LANGUAGE plpgsql AS $$
DECLARE
	p cairn_node%ROWTYPE;
	v_uid bigint;
BEGIN
	-- The lookup unlink and rmdir share (meta.MayDelete on the entry):
	-- locks the directory and the entry's inode, or says why not.
	SELECT * INTO p FROM cairn_node WHERE ino = p_parent FOR UPDATE;
	r_errno := cairn_search(p.ftype, p.mode, p.uid, p.gid, c_uid, c_groups);
	IF r_errno <> 0 THEN RETURN; END IF;
	SELECT ino INTO r_target FROM cairn_edge WHERE parent = p_parent AND name = p_name;
	IF NOT FOUND THEN r_errno := 2; RETURN; END IF;
	SELECT uid INTO v_uid FROM cairn_node WHERE ino = r_target FOR UPDATE;
	IF NOT FOUND THEN r_errno := 5; RETURN; END IF;                      -- EIO: entry without inode
	r_errno := cairn_may_delete(p.mode, p.uid, p.gid, v_uid, c_uid, c_groups);
END
$$`, `
CREATE OR REPLACE FUNCTION cairn_create(p_parent bigint, p_name bytea, p_ino bigint, p_ftype bigint, p_mode bigint,
	p_rdev bigint, p_target bytea, c_uid bigint, c_gid bigint, c_groups text, p_now bigint, p_max_inodes bigint)
RETURNS TABLE (r_errno int, r_ftype bigint, r_mode bigint, r_uid bigint, r_gid bigint, r_rdev bigint,
	r_nlink bigint, r_length bigint, r_atime bigint, r_mtime bigint, r_ctime bigint, r_parent bigint)
LANGUAGE plpgsql AS $$
DECLARE
	p cairn_node%ROWTYPE;
	used bigint;
BEGIN
	SELECT * INTO p FROM cairn_node WHERE ino = p_parent FOR UPDATE;
	r_errno := cairn_search(p.ftype, p.mode, p.uid, p.gid, c_uid, c_groups);
	IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	PERFORM 1 FROM cairn_edge WHERE parent = p_parent AND name = p_name;
	IF FOUND THEN r_errno := 17; RETURN NEXT; RETURN; END IF;            -- EEXIST
	r_errno := cairn_access(p.ftype, p.mode, p.uid, p.gid, c_uid, c_groups, 3);
	IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	IF p_max_inodes > 0 THEN
		SELECT inodes INTO used FROM cairn_usage WHERE id = 1;
		IF used + 1 > p_max_inodes THEN r_errno := 28; RETURN NEXT; RETURN; END IF; -- ENOSPC
	END IF;
	-- meta.InitAttr
	r_ftype := p_ftype; r_mode := p_mode & 4095; r_uid := c_uid; r_gid := c_gid; r_rdev := p_rdev;
	r_nlink := 1; r_length := 0; r_parent := 0;
	r_atime := p_now; r_mtime := p_now; r_ctime := p_now;
	IF p.mode & 1024 <> 0 THEN
		r_gid := p.gid;
		IF p_ftype = 2 THEN
			r_mode := r_mode | 1024;
		ELSIF r_mode & 1032 = 1032 AND c_uid <> 0 AND NOT cairn_in_group(c_groups, r_gid) THEN
			r_mode := r_mode & ~1024::bigint;
		END IF;
	END IF;
	IF p_ftype = 2 THEN r_nlink := 2; r_length := 4096; r_parent := p_parent; END IF;
	IF p_ftype = 3 THEN
		r_length := octet_length(p_target);
		INSERT INTO cairn_symlink (ino, target) VALUES (p_ino, p_target);
	END IF;
	INSERT INTO cairn_node (ino, ftype, mode, uid, gid, rdev, nlink, length, atime, mtime, ctime, parent)
		VALUES (p_ino, r_ftype, r_mode, r_uid, r_gid, r_rdev, r_nlink, r_length, p_now, p_now, p_now, r_parent);
	INSERT INTO cairn_edge (parent, name, ino, ftype) VALUES (p_parent, p_name, p_ino, p_ftype);
	UPDATE cairn_node SET nlink = nlink + CASE WHEN p_ftype = 2 THEN 1 ELSE 0 END, mtime = p_now, ctime = p_now
		WHERE ino = p_parent;
	UPDATE cairn_usage SET inodes = inodes + 1 WHERE id = 1;
	RETURN NEXT;
END
$$`, `
CREATE OR REPLACE FUNCTION cairn_remove(p_parent bigint, p_name bytea, c_uid bigint, c_groups text,
	p_sid bigint, p_now bigint)
RETURNS TABLE (r_errno int, r_ino bigint, r_ftype bigint, r_mode bigint, r_uid bigint, r_gid bigint, r_rdev bigint,
	r_nlink bigint, r_length bigint, r_atime bigint, r_mtime bigint, r_ctime bigint, r_parent bigint)
LANGUAGE plpgsql AS $$
DECLARE
	v cairn_node%ROWTYPE;
BEGIN
	SELECT * INTO r_errno, r_ino FROM cairn_lock_victim(p_parent, p_name, c_uid, c_groups);
	IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	SELECT * INTO v FROM cairn_node WHERE ino = r_ino;
	IF v.ftype = 2 THEN r_errno := 21; RETURN NEXT; RETURN; END IF;      -- EISDIR
	DELETE FROM cairn_edge WHERE parent = p_parent AND name = p_name;
	UPDATE cairn_node SET nlink = nlink - 1, ctime = p_now WHERE ino = r_ino;
	IF v.nlink = 1 THEN
		INSERT INTO cairn_orphan (ino, sid) VALUES (r_ino, p_sid);
	END IF;
	UPDATE cairn_node SET mtime = p_now, ctime = p_now WHERE ino = p_parent;
	r_ftype := v.ftype; r_mode := v.mode; r_uid := v.uid; r_gid := v.gid; r_rdev := v.rdev;
	r_nlink := v.nlink - 1; r_length := v.length; r_atime := v.atime; r_mtime := v.mtime; r_ctime := p_now;
	r_parent := v.parent;
	RETURN NEXT;
END
$$`, `
CREATE OR REPLACE FUNCTION cairn_rmdir(p_parent bigint, p_name bytea, c_uid bigint, c_groups text, p_now bigint)
RETURNS TABLE (r_errno int)
LANGUAGE plpgsql AS $$
DECLARE
	v cairn_node%ROWTYPE;
	target bigint;
BEGIN
	SELECT * INTO r_errno, target FROM cairn_lock_victim(p_parent, p_name, c_uid, c_groups);
	IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	SELECT * INTO v FROM cairn_node WHERE ino = target;
	IF v.ftype <> 2 THEN r_errno := 20; RETURN NEXT; RETURN; END IF;
	-- Entries are made under their directory's row lock, which is held.
	PERFORM 1 FROM cairn_edge WHERE parent = target LIMIT 1;
	IF FOUND THEN r_errno := 39; RETURN NEXT; RETURN; END IF;            -- ENOTEMPTY
	DELETE FROM cairn_edge WHERE parent = p_parent AND name = p_name;
	UPDATE cairn_node SET nlink = nlink - 1, mtime = p_now, ctime = p_now WHERE ino = p_parent;
	DELETE FROM cairn_node WHERE ino = target;
	DELETE FROM cairn_xattr WHERE ino = target;
	DELETE FROM cairn_flock WHERE ino = target;
	DELETE FROM cairn_plock WHERE ino = target;
	UPDATE cairn_usage SET inodes = inodes - 1 WHERE id = 1;
	RETURN NEXT;
END
$$`, `
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
$$`, `
CREATE OR REPLACE FUNCTION cairn_move(p_sp bigint, p_sn bytea, p_dp bigint, p_dn bytea, p_flags bigint,
	c_uid bigint, c_groups text, p_sid bigint, p_now bigint)
RETURNS TABLE (r_errno int, r_ino bigint, r_replaced bigint, r_ftype bigint, r_mode bigint, r_uid bigint,
	r_gid bigint, r_rdev bigint, r_nlink bigint, r_length bigint, r_atime bigint, r_mtime bigint,
	r_ctime bigint, r_parent bigint)
LANGUAGE plpgsql AS $$
DECLARE
	sp cairn_node%ROWTYPE;
	dp cairn_node%ROWTYPE;
	s cairn_node%ROWTYPE;
	d cairn_node%ROWTYPE;
	dst bigint;
	has_dst boolean;
	exchange boolean := p_flags & 2 <> 0;
	cross_locked boolean := false;
	sp_delta bigint := 0;
	dp_delta bigint := 0;
	anc int;
BEGIN
	r_ino := 0; r_replaced := 0;
	-- Moving a directory between parents takes the rename lock first
	-- (rename.go: lockCrossDirectoryRenames). The entries' types are peeked
	-- at before any lock and checked again under the locks.
	IF p_sp <> p_dp AND EXISTS (SELECT 1 FROM cairn_edge WHERE ftype = 2 AND
		(parent = p_sp AND name = p_sn OR parent = p_dp AND name = p_dn)) THEN
		PERFORM 1 FROM cairn_counter WHERE name = 'rename' FOR UPDATE;
		cross_locked := true;
	END IF;
	PERFORM 1 FROM cairn_node WHERE ino IN (p_sp, p_dp) ORDER BY ino FOR UPDATE;
	SELECT * INTO sp FROM cairn_node WHERE ino = p_sp;
	r_errno := cairn_search(sp.ftype, sp.mode, sp.uid, sp.gid, c_uid, c_groups);
	IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	SELECT * INTO dp FROM cairn_node WHERE ino = p_dp;
	r_errno := cairn_search(dp.ftype, dp.mode, dp.uid, dp.gid, c_uid, c_groups);
	IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	SELECT ino INTO r_ino FROM cairn_edge WHERE parent = p_sp AND name = p_sn;
	IF NOT FOUND THEN r_errno := 2; r_ino := 0; RETURN NEXT; RETURN; END IF;
	SELECT ino INTO dst FROM cairn_edge WHERE parent = p_dp AND name = p_dn;
	has_dst := FOUND;
	IF p_flags & 1 <> 0 AND has_dst THEN r_errno := 17; RETURN NEXT; RETURN; END IF; -- EEXIST
	IF exchange AND NOT has_dst THEN r_errno := 2; RETURN NEXT; RETURN; END IF;
	PERFORM 1 FROM cairn_node WHERE ino IN (r_ino, dst) ORDER BY ino FOR UPDATE;
	SELECT * INTO s FROM cairn_node WHERE ino = r_ino;
	IF NOT FOUND THEN r_errno := 5; RETURN NEXT; RETURN; END IF;          -- EIO: entry without inode
	IF has_dst THEN
		SELECT * INTO d FROM cairn_node WHERE ino = dst;
		IF NOT FOUND THEN r_errno := 5; RETURN NEXT; RETURN; END IF;
	END IF;
	r_ftype := s.ftype; r_mode := s.mode; r_uid := s.uid; r_gid := s.gid; r_rdev := s.rdev;
	r_nlink := s.nlink; r_length := s.length; r_atime := s.atime; r_mtime := s.mtime; r_ctime := s.ctime;
	r_parent := s.parent;
	IF has_dst AND dst = r_ino THEN RETURN NEXT; RETURN; END IF;          -- two names of one inode
	IF p_sp <> p_dp AND NOT cross_locked AND (s.ftype = 2 OR (has_dst AND d.ftype = 2)) THEN
		r_errno := -1; RETURN NEXT; RETURN;                               -- changed since the peek: again
	END IF;
	IF s.ftype = 2 AND p_sp <> p_dp THEN
		anc := cairn_is_ancestor(r_ino, p_dp);
		IF anc < 0 THEN r_errno := 5; RETURN NEXT; RETURN; END IF;
		IF anc > 0 THEN r_errno := 22; RETURN NEXT; RETURN; END IF;       -- EINVAL
	END IF;
	IF has_dst AND d.ftype = 2 AND p_sp <> p_dp THEN
		anc := cairn_is_ancestor(dst, p_sp);
		IF anc < 0 THEN r_errno := 5; RETURN NEXT; RETURN; END IF;
		IF anc > 0 THEN
			r_errno := CASE WHEN exchange THEN 22 ELSE 39 END;            -- EINVAL, ENOTEMPTY
			RETURN NEXT; RETURN;
		END IF;
	END IF;
	r_errno := cairn_may_delete(sp.mode, sp.uid, sp.gid, s.uid, c_uid, c_groups);
	IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	IF has_dst THEN
		r_errno := cairn_may_delete(dp.mode, dp.uid, dp.gid, d.uid, c_uid, c_groups);
	ELSE
		r_errno := cairn_access(dp.ftype, dp.mode, dp.uid, dp.gid, c_uid, c_groups, 3);
	END IF;
	IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	IF has_dst AND NOT exchange THEN
		IF s.ftype = 2 AND d.ftype <> 2 THEN r_errno := 20; RETURN NEXT; RETURN; END IF; -- ENOTDIR
		IF s.ftype <> 2 AND d.ftype = 2 THEN r_errno := 21; RETURN NEXT; RETURN; END IF; -- EISDIR
	END IF;
	IF p_sp <> p_dp THEN
		IF s.ftype = 2 THEN
			r_errno := cairn_access(s.ftype, s.mode, s.uid, s.gid, c_uid, c_groups, 2);
			IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
		END IF;
		IF exchange AND d.ftype = 2 THEN
			r_errno := cairn_access(d.ftype, d.mode, d.uid, d.gid, c_uid, c_groups, 2);
			IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
		END IF;
	END IF;
	IF has_dst AND NOT exchange AND d.ftype = 2 THEN
		PERFORM 1 FROM cairn_edge WHERE parent = dst LIMIT 1;
		IF FOUND THEN r_errno := 39; RETURN NEXT; RETURN; END IF;        -- ENOTEMPTY
	END IF;

	IF exchange THEN
		UPDATE cairn_edge SET ino = dst, ftype = d.ftype WHERE parent = p_sp AND name = p_sn;
		UPDATE cairn_edge SET ino = r_ino, ftype = s.ftype WHERE parent = p_dp AND name = p_dn;
		IF p_sp <> p_dp AND d.ftype = 2 THEN
			dp_delta := dp_delta - 1; sp_delta := sp_delta + 1;
			UPDATE cairn_node SET parent = p_sp, ctime = p_now WHERE ino = dst;
		ELSE
			UPDATE cairn_node SET ctime = p_now WHERE ino = dst;
		END IF;
	ELSE
		IF has_dst THEN
			IF d.ftype = 2 THEN
				dp_delta := dp_delta - 1;
				DELETE FROM cairn_node WHERE ino = dst;
				DELETE FROM cairn_xattr WHERE ino = dst;
				DELETE FROM cairn_flock WHERE ino = dst;
				DELETE FROM cairn_plock WHERE ino = dst;
			ELSE
				UPDATE cairn_node SET nlink = nlink - 1, ctime = p_now WHERE ino = dst;
				IF d.nlink = 1 THEN
					INSERT INTO cairn_orphan (ino, sid) VALUES (dst, p_sid);
					r_replaced := dst;
				END IF;
			END IF;
			UPDATE cairn_edge SET ino = r_ino, ftype = s.ftype WHERE parent = p_dp AND name = p_dn;
		ELSE
			INSERT INTO cairn_edge (parent, name, ino, ftype) VALUES (p_dp, p_dn, r_ino, s.ftype);
		END IF;
		DELETE FROM cairn_edge WHERE parent = p_sp AND name = p_sn;
	END IF;
	IF p_sp <> p_dp AND s.ftype = 2 THEN
		sp_delta := sp_delta - 1; dp_delta := dp_delta + 1;
		r_parent := p_dp;
	END IF;
	r_ctime := p_now;
	UPDATE cairn_node SET parent = r_parent, ctime = p_now WHERE ino = r_ino;
	IF p_sp = p_dp THEN
		UPDATE cairn_node SET nlink = nlink + sp_delta + dp_delta, mtime = p_now, ctime = p_now WHERE ino = p_sp;
	ELSE
		UPDATE cairn_node SET nlink = nlink + sp_delta, mtime = p_now, ctime = p_now WHERE ino = p_sp;
		UPDATE cairn_node SET nlink = nlink + dp_delta, mtime = p_now, ctime = p_now WHERE ino = p_dp;
	END IF;
	IF has_dst AND NOT exchange AND d.ftype = 2 THEN
		UPDATE cairn_usage SET inodes = inodes - 1 WHERE id = 1;
	END IF;
	RETURN NEXT;
END
$$`, `
CREATE OR REPLACE FUNCTION cairn_link(p_ino bigint, p_parent bigint, p_name bytea, c_uid bigint, c_groups text,
	p_now bigint)
RETURNS TABLE (r_errno int, r_ftype bigint, r_mode bigint, r_uid bigint, r_gid bigint, r_rdev bigint,
	r_nlink bigint, r_length bigint, r_atime bigint, r_mtime bigint, r_ctime bigint, r_parent bigint)
LANGUAGE plpgsql AS $$
DECLARE
	p cairn_node%ROWTYPE;
	f cairn_node%ROWTYPE;
BEGIN
	PERFORM 1 FROM cairn_node WHERE ino IN (p_ino, p_parent) ORDER BY ino FOR UPDATE;
	SELECT * INTO p FROM cairn_node WHERE ino = p_parent;
	r_errno := cairn_search(p.ftype, p.mode, p.uid, p.gid, c_uid, c_groups);
	IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	SELECT * INTO f FROM cairn_node WHERE ino = p_ino;
	IF NOT FOUND THEN r_errno := 2; RETURN NEXT; RETURN; END IF;
	PERFORM 1 FROM cairn_edge WHERE parent = p_parent AND name = p_name;
	IF FOUND THEN r_errno := 17; RETURN NEXT; RETURN; END IF;            -- EEXIST
	r_errno := cairn_access(p.ftype, p.mode, p.uid, p.gid, c_uid, c_groups, 3);
	IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	IF f.ftype = 2 THEN r_errno := 1; RETURN NEXT; RETURN; END IF;       -- EPERM
	IF f.nlink = 0 THEN r_errno := 2; RETURN NEXT; RETURN; END IF;
	IF f.nlink >= 65000 THEN r_errno := 31; RETURN NEXT; RETURN; END IF; -- EMLINK (maxLinks)
	UPDATE cairn_node SET nlink = nlink + 1, ctime = p_now WHERE ino = p_ino;
	INSERT INTO cairn_edge (parent, name, ino, ftype) VALUES (p_parent, p_name, p_ino, f.ftype);
	UPDATE cairn_node SET mtime = p_now, ctime = p_now WHERE ino = p_parent;
	r_ftype := f.ftype; r_mode := f.mode; r_uid := f.uid; r_gid := f.gid; r_rdev := f.rdev;
	r_nlink := f.nlink + 1; r_length := f.length; r_atime := f.atime; r_mtime := f.mtime; r_ctime := p_now;
	r_parent := f.parent;
	RETURN NEXT;
END
$$`, `
CREATE OR REPLACE FUNCTION cairn_setxattr(p_ino bigint, p_name bytea, p_value bytea, p_flags bigint,
	c_uid bigint, p_now bigint)
RETURNS TABLE (r_errno int)
LANGUAGE plpgsql AS $$
DECLARE
	owner bigint;
	present boolean;
BEGIN
	SELECT uid INTO owner FROM cairn_node WHERE ino = p_ino FOR UPDATE;
	IF NOT FOUND THEN r_errno := 2; RETURN NEXT; RETURN; END IF;          -- ENOENT
	IF c_uid <> 0 AND c_uid <> owner THEN r_errno := 1; RETURN NEXT; RETURN; END IF; -- EPERM
	IF p_flags <> 0 THEN
		present := EXISTS (SELECT 1 FROM cairn_xattr WHERE ino = p_ino AND name = p_name);
		IF present AND p_flags = 1 THEN r_errno := 17; RETURN NEXT; RETURN; END IF;     -- EEXIST
		IF NOT present AND p_flags = 2 THEN r_errno := 61; RETURN NEXT; RETURN; END IF; -- ENODATA
	END IF;
	INSERT INTO cairn_xattr AS x (ino, name, value) VALUES (p_ino, p_name, p_value)
		ON CONFLICT (ino, name) DO UPDATE SET value = excluded.value;
	UPDATE cairn_node SET ctime = p_now WHERE ino = p_ino;
	r_errno := 0;
	RETURN NEXT;
END
$$`, `
CREATE OR REPLACE FUNCTION cairn_removexattr(p_ino bigint, p_name bytea, c_uid bigint, p_now bigint)
RETURNS TABLE (r_errno int)
LANGUAGE plpgsql AS $$
DECLARE
	owner bigint;
BEGIN
	SELECT uid INTO owner FROM cairn_node WHERE ino = p_ino FOR UPDATE;
	IF NOT FOUND THEN r_errno := 2; RETURN NEXT; RETURN; END IF;          -- ENOENT
	IF c_uid <> 0 AND c_uid <> owner THEN r_errno := 1; RETURN NEXT; RETURN; END IF; -- EPERM
	DELETE FROM cairn_xattr WHERE ino = p_ino AND name = p_name;
	IF NOT FOUND THEN r_errno := 61; RETURN NEXT; RETURN; END IF;         -- ENODATA
	UPDATE cairn_node SET ctime = p_now WHERE ino = p_ino;
	r_errno := 0;
	RETURN NEXT;
END
$$`, `
CREATE OR REPLACE FUNCTION cairn_setattr(p_ino bigint, p_which bigint, p_mode bigint, p_uid bigint, p_gid bigint,
	p_atime bigint, p_mtime bigint, c_uid bigint, c_groups text, p_now bigint)
RETURNS TABLE (r_errno int, r_ftype bigint, r_mode bigint, r_uid bigint, r_gid bigint, r_rdev bigint,
	r_nlink bigint, r_length bigint, r_atime bigint, r_mtime bigint, r_ctime bigint, r_parent bigint)
LANGUAGE plpgsql AS $$
DECLARE
	a cairn_node%ROWTYPE;
	is_root boolean := c_uid = 0;
	is_owner boolean;
	g bigint;
BEGIN
	-- meta.ApplySetAttr. p_which: 1 mode, 2 uid, 4 gid, 8 atime, 16 mtime,
	-- 32 atime now, 64 mtime now.
	SELECT * INTO a FROM cairn_node WHERE ino = p_ino FOR UPDATE;
	IF NOT FOUND THEN r_errno := 2; RETURN NEXT; RETURN; END IF;          -- ENOENT
	is_owner := is_root OR c_uid = a.uid;
	r_errno := 1;                                                         -- EPERM
	IF p_which & 2 <> 0 AND p_uid <> a.uid AND NOT is_root THEN RETURN NEXT; RETURN; END IF;
	IF p_which & 4 <> 0 AND p_gid <> a.gid AND NOT is_root
		AND NOT (c_uid = a.uid AND cairn_in_group(c_groups, p_gid)) THEN RETURN NEXT; RETURN; END IF;
	IF p_which & 25 <> 0 AND NOT is_owner THEN RETURN NEXT; RETURN; END IF;
	r_errno := 0;
	IF p_which & 96 <> 0 AND NOT is_owner THEN
		r_errno := cairn_access(a.ftype, a.mode, a.uid, a.gid, c_uid, c_groups, 2);
		IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	END IF;
	IF p_which & 1 <> 0 THEN
		a.mode := p_mode & 4095;
		IF NOT is_root AND a.mode & 1024 <> 0 AND NOT cairn_in_group(c_groups, a.gid) THEN
			g := CASE WHEN p_which & 4 <> 0 THEN p_gid ELSE a.gid END;
			IF NOT cairn_in_group(c_groups, g) THEN a.mode := a.mode & ~1024::bigint; END IF;
		END IF;
	END IF;
	IF p_which & 6 <> 0 THEN
		IF p_which & 2 <> 0 THEN a.uid := p_uid; END IF;
		IF p_which & 4 <> 0 THEN a.gid := p_gid; END IF;
		IF a.ftype <> 2 AND p_which & 1 = 0 THEN
			-- chown clears setuid, and setgid when group-executable.
			a.mode := a.mode & ~2048::bigint;
			IF a.mode & 8 <> 0 THEN a.mode := a.mode & ~1024::bigint; END IF;
		END IF;
	END IF;
	IF p_which & 8 <> 0 THEN a.atime := p_atime; END IF;
	IF p_which & 32 <> 0 THEN a.atime := p_now; END IF;
	IF p_which & 16 <> 0 THEN a.mtime := p_mtime; END IF;
	IF p_which & 64 <> 0 THEN a.mtime := p_now; END IF;
	IF p_which <> 0 THEN a.ctime := p_now; END IF;
	UPDATE cairn_node SET mode = a.mode, uid = a.uid, gid = a.gid, atime = a.atime, mtime = a.mtime, ctime = a.ctime
		WHERE ino = p_ino;
	r_ftype := a.ftype; r_mode := a.mode; r_uid := a.uid; r_gid := a.gid; r_rdev := a.rdev;
	r_nlink := a.nlink; r_length := a.length; r_atime := a.atime; r_mtime := a.mtime; r_ctime := a.ctime;
	r_parent := a.parent;
	RETURN NEXT;
END
$$`, `
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
$$`, `
CREATE OR REPLACE FUNCTION cairn_hide_range(p_ino bigint, p_off bigint, p_end bigint) RETURNS void
LANGUAGE sql AS $$
	-- data.go hideRange: a hole record over [p_off, p_end) appended to
	-- each chunk that exists there, so that those bytes read as zeros.
	UPDATE cairn_chunk SET slices = slices
		|| int4send((greatest(p_off, idx * 67108864) - idx * 67108864)::int) || int8send(0::bigint)
		|| int4send((least(p_end, (idx + 1) * 67108864) - greatest(p_off, idx * 67108864))::int) || int4send(0)
		|| int4send((least(p_end, (idx + 1) * 67108864) - greatest(p_off, idx * 67108864))::int)
	WHERE ino = p_ino AND p_off < p_end AND idx >= p_off / 67108864 AND idx <= (p_end - 1) / 67108864
$$`, `
CREATE OR REPLACE FUNCTION cairn_release(p_sid bigint, p_ino bigint)
RETURNS TABLE (r_errno int)
LANGUAGE plpgsql AS $$
DECLARE
	owner bigint;
	a cairn_node%ROWTYPE;
BEGIN
	r_errno := 0;
	SELECT sid INTO owner FROM cairn_orphan WHERE ino = p_ino FOR UPDATE;
	IF NOT FOUND OR owner <> p_sid THEN RETURN NEXT; RETURN; END IF;
	DELETE FROM cairn_orphan WHERE ino = p_ino;
	SELECT * INTO a FROM cairn_node WHERE ino = p_ino FOR UPDATE;
	IF NOT FOUND OR a.nlink > 0 THEN RETURN NEXT; RETURN; END IF;
	-- namespace.go removeInode
	IF a.ftype = 3 THEN
		DELETE FROM cairn_symlink WHERE ino = p_ino;
	ELSIF a.ftype = 1 THEN
		PERFORM cairn_drop_chunks(p_ino, 0);
	END IF;
	DELETE FROM cairn_node WHERE ino = p_ino;
	DELETE FROM cairn_xattr WHERE ino = p_ino;
	DELETE FROM cairn_flock WHERE ino = p_ino;
	DELETE FROM cairn_plock WHERE ino = p_ino;
	UPDATE cairn_usage SET inodes = inodes - 1,
		space = space - CASE WHEN a.ftype = 1 THEN (a.length + 4095) / 4096 * 4096 ELSE 0 END WHERE id = 1;
	RETURN NEXT;
END
$$`, `
CREATE OR REPLACE FUNCTION cairn_truncate(p_ino bigint, p_length bigint, c_uid bigint, c_groups text,
	p_now bigint, p_capacity bigint)
RETURNS TABLE (r_errno int, r_ftype bigint, r_mode bigint, r_uid bigint, r_gid bigint, r_rdev bigint,
	r_nlink bigint, r_length bigint, r_atime bigint, r_mtime bigint, r_ctime bigint, r_parent bigint)
LANGUAGE plpgsql AS $$
DECLARE
	a cairn_node%ROWTYPE;
	chunk_size constant bigint := 67108864;
	delta bigint;
BEGIN
	SELECT * INTO a FROM cairn_node WHERE ino = p_ino FOR UPDATE;
	r_errno := cairn_file_errno(a.ftype, 22);
	IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	r_errno := cairn_access(a.ftype, a.mode, a.uid, a.gid, c_uid, c_groups, 2);
	IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	delta := cairn_grow(a.length, p_length);
	r_errno := cairn_space_errno(delta, p_capacity);
	IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	IF p_length < a.length THEN
		PERFORM cairn_drop_chunks(p_ino, (p_length + chunk_size - 1) / chunk_size);
		PERFORM cairn_hide_range(p_ino, p_length, least(a.length, (p_length / chunk_size + 1) * chunk_size));
	END IF;
	UPDATE cairn_node SET length = p_length, mtime = p_now, ctime = p_now WHERE ino = p_ino;
	IF delta <> 0 THEN
		UPDATE cairn_usage SET space = space + delta WHERE id = 1;
	END IF;
	r_ftype := a.ftype; r_mode := a.mode; r_uid := a.uid; r_gid := a.gid; r_rdev := a.rdev;
	r_nlink := a.nlink; r_length := p_length; r_atime := a.atime; r_mtime := p_now; r_ctime := p_now;
	r_parent := a.parent;
	RETURN NEXT;
END
$$`, `
CREATE OR REPLACE FUNCTION cairn_flock(p_ino bigint, p_sid bigint, p_owner bigint, p_type bigint)
RETURNS TABLE (r_errno int)
LANGUAGE plpgsql AS $$
BEGIN
	r_errno := 0;
	IF p_type = 2 THEN                                                    -- unlock
		DELETE FROM cairn_flock WHERE ino = p_ino AND sid = p_sid AND owner = p_owner;
		RETURN NEXT; RETURN;
	END IF;
	-- The inode's row guards its lock table: two first lockers must not
	-- both see it empty.
	PERFORM 1 FROM cairn_node WHERE ino = p_ino FOR UPDATE;
	IF NOT FOUND THEN r_errno := 2; RETURN NEXT; RETURN; END IF;          -- ENOENT
	IF EXISTS (SELECT 1 FROM cairn_flock WHERE ino = p_ino AND NOT (sid = p_sid AND owner = p_owner)
		AND (p_type = 1 OR ltype = 1)) THEN
		r_errno := 11; RETURN NEXT; RETURN;                               -- EAGAIN
	END IF;
	INSERT INTO cairn_flock (ino, sid, owner, ltype) VALUES (p_ino, p_sid, p_owner, p_type)
		ON CONFLICT (ino, sid, owner) DO UPDATE SET ltype = excluded.ltype;
	RETURN NEXT;
END
$$`, `
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
$$`, `
CREATE OR REPLACE FUNCTION cairn_fallocate(p_ino bigint, p_mode bigint, p_off bigint, p_end bigint,
	c_uid bigint, c_groups text, p_now bigint, p_capacity bigint)
RETURNS TABLE (r_errno int, r_ftype bigint, r_mode bigint, r_uid bigint, r_gid bigint, r_rdev bigint,
	r_nlink bigint, r_length bigint, r_atime bigint, r_mtime bigint, r_ctime bigint, r_parent bigint)
LANGUAGE plpgsql AS $$
DECLARE
	a cairn_node%ROWTYPE;
	new_len bigint;
	delta bigint;
BEGIN
	-- data.go Fallocate, after its checks of the arguments. p_mode: 1 keep
	-- size, 2 punch a hole, 16 zero the range.
	SELECT * INTO a FROM cairn_node WHERE ino = p_ino FOR UPDATE;
	r_errno := cairn_file_errno(a.ftype, 19);
	IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	r_errno := cairn_access(a.ftype, a.mode, a.uid, a.gid, c_uid, c_groups, 2);
	IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	new_len := a.length;
	IF p_mode & 1 = 0 AND p_end > new_len THEN new_len := p_end; END IF;
	delta := cairn_grow(a.length, new_len);
	r_errno := cairn_space_errno(delta, p_capacity);
	IF r_errno <> 0 THEN RETURN NEXT; RETURN; END IF;
	IF p_mode & 18 <> 0 THEN
		PERFORM cairn_hide_range(p_ino, p_off, least(p_end, a.length));
		a.mtime := p_now;
	ELSIF new_len <> a.length THEN
		a.mtime := p_now;
	END IF;
	UPDATE cairn_node SET length = new_len, mtime = a.mtime, ctime = p_now WHERE ino = p_ino;
	IF delta <> 0 THEN
		UPDATE cairn_usage SET space = space + delta WHERE id = 1;
	END IF;
	r_ftype := a.ftype; r_mode := a.mode; r_uid := a.uid; r_gid := a.gid; r_rdev := a.rdev;
	r_nlink := a.nlink; r_length := new_len; r_atime := a.atime; r_mtime := a.mtime; r_ctime := p_now;
	r_parent := a.parent;
	RETURN NEXT;
END
$$`}
