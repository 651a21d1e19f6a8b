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
	IF p_flags & 65536 <> 0 THEN                                          -- meta.RenameEmptyDir
		IF s.ftype <> 2 THEN r_errno := 20; RETURN NEXT; RETURN; END IF;  -- ENOTDIR
		-- Entries are made under their directory's row lock, which is held.
		PERFORM 1 FROM cairn_edge WHERE parent = r_ino LIMIT 1;
		IF FOUND THEN r_errno := 39; RETURN NEXT; RETURN; END IF;        -- ENOTEMPTY
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
		UPDATE cairn_usage SET inodes = inodes - 1 WHERE id = pg_backend_pid() % 16 + 1;
	END IF;
	RETURN NEXT;
END
$$
