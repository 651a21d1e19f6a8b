package sql

import (
	"context"
	"fmt"
	"strings"

	"cairn/meta"
)

var _ meta.Cloner = (*Engine)(nil)

// Clone copies inode src to a new inode ino named parent/name in one
// transaction (see meta.Cloner). It runs as statements from Go on every
// dialect: PostgreSQL and MySQL have no routine for it yet, so a clone
// there costs a round trip per statement, not one.
func (e *Engine) Clone(ctx context.Context, cred meta.Cred, src, parent meta.Ino, name string, ino meta.Ino, preserve bool) (meta.Attr, error) {
	var a meta.Attr
	err := e.txn(ctx, func(c *conn) error {
		now := nowNs()
		nodes, err := c.lockNodes(src, parent)
		if err != nil {
			return err
		}
		p, s := nodes[parent], nodes[src]
		if p == nil || s == nil {
			return meta.ErrNotFound
		}
		if !p.IsDir() {
			return meta.ErrNotDir
		}
		if err := meta.Access(p, cred, meta.MayExec); err != nil {
			return err
		}
		if _, _, found, err := c.getEdge(parent, name); err != nil {
			return err
		} else if found {
			return meta.ErrExists
		}
		if err := meta.Access(p, cred, meta.MayWrite|meta.MayExec); err != nil {
			return err
		}
		if p.Nlink == 0 || s.Nlink == 0 {
			return meta.ErrNotFound
		}
		if a, err = meta.CloneAttr(s, p, cred, preserve, now); err != nil {
			return err
		}
		if err := c.checkLimits(spaceOf(&a), 1); err != nil {
			return err
		}
		if err := c.cloneContent(src, ino, s, preserve); err != nil {
			return err
		}
		if a.IsDir() {
			a.Parent = parent
			p.Nlink++
		}
		if err := c.insertNode(ino, &a); err != nil {
			return err
		}
		if err := c.insertEdge(parent, name, ino, a.Type); err != nil {
			return err
		}
		if err := c.touchDir(parent, p, now); err != nil {
			return err
		}
		return c.addUsage(spaceOf(&a), 1)
	})
	if err != nil {
		return a, fmt.Errorf("clone inode %d as %q in inode %d: %w", src, name, parent, err)
	}
	return a, nil
}

// cloneContent copies a symbolic link's target, a file's slice lists with
// one more reference to each slice they name, and with preserve the
// extended attributes, from src to ino.
func (c *conn) cloneContent(src, ino meta.Ino, s *meta.Attr, preserve bool) error {
	switch s.Type {
	case meta.TypeSymlink:
		if _, err := c.exec("INSERT INTO cairn_symlink (ino, target) SELECT ?, target FROM cairn_symlink WHERE ino = ?", int64(ino), int64(src)); err != nil {
			return err
		}
	case meta.TypeFile:
		shared, err := c.sliceRecords("SELECT slices FROM cairn_chunk WHERE ino = ?", int64(src))
		if err != nil {
			return fmt.Errorf("slice list of inode %d: %w", src, err)
		}
		if _, err := c.exec("INSERT INTO cairn_chunk (ino, idx, slices) SELECT ?, idx, slices FROM cairn_chunk WHERE ino = ?", int64(ino), int64(src)); err != nil {
			return err
		}
		if err := c.addRefs(shared); err != nil {
			return err
		}
	}
	if preserve {
		if _, err := c.exec("INSERT INTO cairn_xattr (ino, name, value) SELECT ?, name, value FROM cairn_xattr WHERE ino = ?", int64(ino), int64(src)); err != nil {
			return err
		}
	}
	return nil
}

// addRefs records one more reference per record of list (holes aside),
// in statements of up to refBatch slices, in slice order (the lock order
// of the rows).
func (c *conn) addRefs(list []meta.Slice) error {
	ids, count, size := sliceCounts(list)
	return c.upsertRefs(ids, count, size, true)
}

// upsertRefs adds count[id] to the reference count of each slice of ids
// (add), or sets it to count[id], in statements of up to refBatch slices.
func (c *conn) upsertRefs(ids []uint64, count map[uint64]int64, size map[uint64]uint32, add bool) error {
	set := " ON CONFLICT (id) DO UPDATE SET refs = excluded.refs"
	switch {
	case c.e.d.mysqlUpsert && add:
		set = " ON DUPLICATE KEY UPDATE refs = refs + VALUES(refs)"
	case c.e.d.mysqlUpsert:
		set = " ON DUPLICATE KEY UPDATE refs = VALUES(refs)"
	case add:
		set = " ON CONFLICT (id) DO UPDATE SET refs = cairn_sliceref.refs + excluded.refs"
	}
	for len(ids) > 0 {
		n := min(len(ids), refBatch)
		q := "INSERT INTO cairn_sliceref (id, size, refs) VALUES " + strings.TrimSuffix(strings.Repeat("(?, ?, ?), ", n), ", ") + set
		args := make([]any, 0, 3*n)
		for _, id := range ids[:n] {
			args = append(args, int64(id), int64(size[id]), count[id])
		}
		if _, err := c.exec(q, args...); err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}
