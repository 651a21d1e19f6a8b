package sql

import (
	"context"
	"fmt"

	"cairn/meta"
)

var _ meta.BatchRemover = (*Engine)(nil)

// RemoveEntries removes non-directory entries of one directory in one
// transaction, deleting at once the inodes that lose their last link (see
// meta.BatchRemover); it never leaves orphans. It works on sets, a dozen
// statements for the whole batch, so that a server engine pays a dozen
// round trips rather than several per name.
func (e *Engine) RemoveEntries(ctx context.Context, cred meta.Cred, parent meta.Ino, names []string, sid uint64) (meta.BatchRemoval, error) {
	var out meta.BatchRemoval
	err := e.txn(ctx, func(c *conn) (err error) {
		out, err = c.removeEntries(cred, parent, names)
		return err
	})
	if err != nil {
		return meta.BatchRemoval{}, fmt.Errorf("remove %d entries of directory %d: %w", len(names), parent, err)
	}
	return out, nil
}

func (c *conn) removeEntries(cred meta.Cred, parent meta.Ino, names []string) (meta.BatchRemoval, error) {
	var out meta.BatchRemoval
	now := nowNs()
	p, err := c.getNode(parent, true)
	if err != nil {
		return out, err
	}
	if !p.IsDir() {
		return out, meta.ErrNotDir
	}
	if err := meta.Access(&p, cred, meta.MayExec); err != nil {
		return out, err
	}
	found, err := c.edgesNamed(parent, names)
	if err != nil || len(found) == 0 {
		return out, err
	}
	links := map[meta.Ino]uint32{} // links each inode loses
	var inos []meta.Ino
	for _, ino := range found {
		if links[ino] == 0 {
			inos = append(inos, ino)
		}
		links[ino]++
	}
	nodes, err := c.lockNodes(inos...)
	if err != nil {
		return out, err
	}
	for name, ino := range found {
		a := nodes[ino]
		if a == nil {
			return out, fmt.Errorf("entry %q of directory %d names inode %d, which is missing: %w", name, parent, ino, meta.ErrIO)
		}
		if err := meta.MayDelete(&p, a, cred); err != nil {
			return out, err
		}
		if a.IsDir() {
			return out, meta.ErrIsDir
		}
	}
	gone := make([]string, 0, len(found))
	for name := range found {
		gone = append(gone, name)
	}
	if _, err := c.exec("DELETE FROM cairn_edge WHERE parent = ? AND name IN ("+marks(len(gone))+")", append([]any{int64(parent)}, nameArgs(gone)...)...); err != nil {
		return out, err
	}
	out.Removed = len(found)
	var dead []meta.Ino
	var space int64
	for _, ino := range inos {
		a := nodes[ino]
		if a.Nlink > links[ino] {
			if _, err := c.exec("UPDATE cairn_node SET nlink = ?, ctime = ? WHERE ino = ?", int64(a.Nlink-links[ino]), now, int64(ino)); err != nil {
				return out, err
			}
			continue
		}
		dead = append(dead, ino)
		space += spaceOf(a)
	}
	if err := c.deleteInodes(dead); err != nil {
		return out, err
	}
	if err := c.touchDir(parent, &p, now); err != nil {
		return out, err
	}
	return out, c.addUsage(-space, -int64(len(dead)))
}

// edgesNamed finds which of names exist in directory parent.
func (c *conn) edgesNamed(parent meta.Ino, names []string) (map[string]meta.Ino, error) {
	rows, err := c.query("SELECT name, ino FROM cairn_edge WHERE parent = ? AND name IN ("+marks(len(names))+")",
		append([]any{int64(parent)}, nameArgs(names)...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	found := map[string]meta.Ino{}
	for rows.Next() {
		var name []byte
		var ino int64
		if err := rows.Scan(&name, &ino); err != nil {
			return nil, err
		}
		found[string(name)] = meta.Ino(ino)
	}
	return found, rows.Err()
}

// deleteInodes deletes inodes that have no entry left and nobody holds,
// as removeInode does one by one, but for Usage, which the caller
// changes.
func (c *conn) deleteInodes(inos []meta.Ino) error {
	if len(inos) == 0 {
		return nil
	}
	args := make([]any, len(inos))
	for i, ino := range inos {
		args[i] = int64(ino)
	}
	in := " WHERE ino IN (" + marks(len(inos)) + ")"
	records, err := c.sliceRecords("SELECT slices FROM cairn_chunk"+in, args...)
	if err != nil {
		return err
	}
	tables := []string{"cairn_node", "cairn_xattr", "cairn_flock", "cairn_plock", "cairn_symlink"}
	if len(records) > 0 {
		tables = append(tables, "cairn_chunk")
	}
	for _, table := range tables {
		if _, err := c.exec("DELETE FROM "+table+in, args...); err != nil {
			return err
		}
	}
	if len(records) == 0 {
		return nil
	}
	return c.dropRefs(records)
}

func nameArgs(names []string) []any {
	args := make([]any, len(names))
	for i, name := range names {
		args[i] = nameArg(name)
	}
	return args
}
