package sql

import (
	"context"
	"fmt"

	"cairn/meta"
)

var _ meta.BatchRemover = (*Engine)(nil)

// RemoveEntries removes non-directory entries of one directory in one
// transaction, deleting at once the inodes that lose their last link (see
// meta.BatchRemover); it never leaves orphans.
func (e *Engine) RemoveEntries(ctx context.Context, cred meta.Cred, parent meta.Ino, names []string, sid uint64) (meta.BatchRemoval, error) {
	var out meta.BatchRemoval
	err := e.txn(ctx, func(c *conn) error {
		out = meta.BatchRemoval{}
		now := nowNs()
		p, err := c.getNode(parent, true)
		if err != nil {
			return err
		}
		if !p.IsDir() {
			return meta.ErrNotDir
		}
		if err := meta.Access(&p, cred, meta.MayExec); err != nil {
			return err
		}
		var space, inodes int64
		for _, name := range names {
			ino, _, found, err := c.getEdge(parent, name)
			if err != nil {
				return err
			}
			if !found {
				continue
			}
			a, err := c.getNode(ino, true)
			if err != nil {
				return fmt.Errorf("entry %q of directory %d names inode %d: %w", name, parent, ino, err)
			}
			if err := meta.MayDelete(&p, &a, cred); err != nil {
				return err
			}
			if a.IsDir() {
				return meta.ErrIsDir
			}
			if err := c.deleteEdge(parent, name); err != nil {
				return err
			}
			out.Removed++
			if a.Nlink > 1 {
				a.Nlink--
				if _, err := c.exec("UPDATE cairn_node SET nlink = ?, ctime = ? WHERE ino = ?", int64(a.Nlink), now, int64(ino)); err != nil {
					return err
				}
				continue
			}
			if err := c.deleteInodeRows(ino, &a); err != nil {
				return err
			}
			space -= spaceOf(&a)
			inodes--
		}
		if out.Removed == 0 {
			return nil
		}
		if err := c.touchDir(parent, &p, now); err != nil {
			return err
		}
		return c.addUsage(space, inodes)
	})
	if err != nil {
		return meta.BatchRemoval{}, fmt.Errorf("remove %d entries of directory %d: %w", len(names), parent, err)
	}
	return out, nil
}
