package sql

import (
	"context"
	dbsql "database/sql"
	"fmt"

	"cairn/meta"
)

// Rename moves or exchanges entries with renameat2's rules, checked in the
// order Linux checks them.
func (e *Engine) Rename(ctx context.Context, cred meta.Cred, sp meta.Ino, sn string, dp meta.Ino, dn string, flags uint32, sid uint64) (moved meta.Ino, attr meta.Attr, replaced meta.Ino, err error) {
	if flags&^(meta.RenameNoReplace|meta.RenameExchange) != 0 || flags == meta.RenameNoReplace|meta.RenameExchange {
		return 0, meta.Attr{}, 0, meta.ErrInvalid
	}
	if err := meta.CheckName(sn); err != nil {
		return 0, meta.Attr{}, 0, err
	}
	if err := meta.CheckName(dn); err != nil {
		return 0, meta.Attr{}, 0, err
	}
	if e.d.routines {
		moved, attr, replaced, err = e.renameRoutine(ctx, cred, sp, sn, dp, dn, flags, sid)
		if err != errMissingRoutine {
			return moved, attr, replaced, err
		}
	}
	exchange := flags&meta.RenameExchange != 0
	err = e.txn(ctx, func(c *conn) error {
		moved, replaced = 0, 0
		removeDir := false // dst is a directory being replaced
		now := nowNs()
		// Lock the parents, read both entries, and (on MySQL, where all
		// of it is one round trip) lock the inodes they name.
		var srcIno, dstIno meta.Ino
		var srcTyp, dstTyp meta.FileType
		var found, dstFound bool
		parents := make(map[meta.Ino]*meta.Attr, 2)
		var nodes map[meta.Ino]*meta.Attr
		steps := []readStep{
			{q: c.lockNodesQuery(2), args: []any{int64(sp), int64(dp)}, all: func(rows *dbsql.Rows) error {
				return scanNodes(rows, parents)
			}},
			{q: edgeQuery, args: []any{int64(sp), nameArg(sn)}, scan: func(sc scanner) error {
				return scanEdge(sc, &srcIno, &srcTyp, &found)
			}},
			{q: edgeQuery, args: []any{int64(dp), nameArg(dn)}, scan: func(sc scanner) error {
				return scanEdge(sc, &dstIno, &dstTyp, &dstFound)
			}},
		}
		if c.batch && c.e.d.batchReads {
			if sp != dp {
				steps = append([]readStep{{q: crossRenameQuery + c.e.d.forUpdate, scan: func(sc scanner) error {
					var v int64
					return sc.Scan(&v)
				}}}, steps...)
			}
			nodes = make(map[meta.Ino]*meta.Attr, 2)
			steps = append(steps, readStep{q: "SELECT ino, " + nodeCols + " FROM cairn_node WHERE ino IN (" +
				"SELECT ino FROM cairn_edge WHERE parent = ? AND name = ? OR parent = ? AND name = ?) ORDER BY ino" + c.e.d.forUpdate,
				args: []any{int64(sp), nameArg(sn), int64(dp), nameArg(dn)}, all: func(rows *dbsql.Rows) error {
					return scanNodes(rows, nodes)
				}})
		} else if sp != dp {
			if err := c.lockCrossDirectoryRenames(); err != nil {
				return err
			}
		}
		if err := c.readSeq(steps...); err != nil {
			return err
		}
		spa, dpa := parents[sp], parents[dp]
		for _, p := range []*meta.Attr{spa, dpa} {
			if p == nil {
				return meta.ErrNotFound
			}
			if !p.IsDir() {
				return meta.ErrNotDir
			}
			if err := meta.Access(p, cred, meta.MayExec); err != nil {
				return err
			}
		}
		if !found {
			return meta.ErrNotFound
		}
		if flags&meta.RenameNoReplace != 0 && dstFound {
			return meta.ErrExists
		}
		if exchange && !dstFound {
			return meta.ErrNotFound
		}
		inodes := []meta.Ino{srcIno}
		if dstFound {
			inodes = append(inodes, dstIno)
		}
		if nodes == nil {
			var err error
			if nodes, err = c.lockNodes(inodes...); err != nil {
				return err
			}
		}
		src, dst := nodes[srcIno], nodes[dstIno]
		if src == nil || (dstFound && dst == nil) {
			return fmt.Errorf("entry names a missing inode: %w", meta.ErrIO)
		}
		moved, attr = srcIno, *src
		if dstFound && srcIno == dstIno {
			return nil // two names of one inode: nothing to do
		}
		if src.IsDir() && sp != dp {
			if in, err := c.isAncestor(srcIno, dp); err != nil {
				return err
			} else if in {
				return meta.ErrInvalid
			}
		}
		if dstFound && dst.IsDir() && sp != dp {
			if in, err := c.isAncestor(dstIno, sp); err != nil {
				return err
			} else if in {
				if exchange {
					return meta.ErrInvalid
				}
				return meta.ErrNotEmpty
			}
		}
		if err := meta.MayDelete(spa, src, cred); err != nil {
			return err
		}
		if dstFound {
			if err := meta.MayDelete(dpa, dst, cred); err != nil {
				return err
			}
		} else if err := meta.Access(dpa, cred, meta.MayWrite|meta.MayExec); err != nil {
			return err
		}
		if dstFound && !exchange {
			if src.IsDir() && !dst.IsDir() {
				return meta.ErrNotDir
			}
			if !src.IsDir() && dst.IsDir() {
				return meta.ErrIsDir
			}
		}
		if sp != dp {
			if src.IsDir() {
				if err := meta.Access(src, cred, meta.MayWrite); err != nil {
					return err
				}
			}
			if exchange && dst.IsDir() {
				if err := meta.Access(dst, cred, meta.MayWrite); err != nil {
					return err
				}
			}
		}
		if dstFound && !exchange && dst.IsDir() {
			if err := c.checkEmpty(dstIno); err != nil {
				return err
			}
		}

		if exchange {
			if err := c.pointEdge(sp, sn, dstIno, dst.Type); err != nil {
				return err
			}
			if err := c.pointEdge(dp, dn, srcIno, src.Type); err != nil {
				return err
			}
			if sp != dp {
				c.reparent(src, spa, dpa, dp)
				c.reparent(dst, dpa, spa, sp)
			}
			dst.Ctime = now
			if err := c.putNode(dstIno, dst); err != nil {
				return err
			}
		} else {
			if dstFound {
				if dst.IsDir() {
					dpa.Nlink--
					removeDir = true
				} else {
					if err := c.dropLink(dstIno, dst, now, sid); err != nil {
						return err
					}
					if dst.Nlink == 0 {
						replaced = dstIno
					}
				}
				if err := c.pointEdge(dp, dn, srcIno, src.Type); err != nil {
					return err
				}
			} else if err := c.insertEdge(dp, dn, srcIno, src.Type); err != nil {
				return err
			}
			if err := c.deleteEdge(sp, sn); err != nil {
				return err
			}
			if sp != dp {
				c.reparent(src, spa, dpa, dp)
			}
		}
		src.Ctime = now
		if err := c.putNode(srcIno, src); err != nil {
			return err
		}
		attr = *src
		if err := c.touchDir(sp, spa, now); err != nil {
			return err
		}
		if sp != dp {
			if err := c.touchDir(dp, dpa, now); err != nil {
				return err
			}
		}
		if removeDir {
			return c.removeInode(dstIno, dst)
		}
		return nil
	})
	if err != nil {
		return 0, meta.Attr{}, 0, err
	}
	return moved, attr, replaced, nil
}

// reparent moves inode a from directory from to directory to (ino toIno),
// fixing the directories' link counts when a is a directory.
func (c *conn) reparent(a, from, to *meta.Attr, toIno meta.Ino) {
	if !a.IsDir() {
		return
	}
	a.Parent = toIno
	from.Nlink--
	to.Nlink++
}

// pointEdge makes an existing entry name another inode.
func (c *conn) pointEdge(parent meta.Ino, name string, ino meta.Ino, typ meta.FileType) error {
	_, err := c.exec("UPDATE cairn_edge SET ino = ?, ftype = ? WHERE parent = ? AND name = ?",
		int64(ino), int64(typ), int64(parent), nameArg(name))
	return err
}

// lockCrossDirectoryRenames serialises renames between directories, as
// Linux's per-file-system rename mutex does: while one runs, no directory
// changes parent, so its loop check walks a chain nobody else rewrites,
// without locking every ancestor (which made concurrent moves deadlock).
// Where a write transaction excludes all others (SQLite) it is free.
func (c *conn) lockCrossDirectoryRenames() error {
	if c.e.d.singleWriter {
		return nil
	}
	var v int64
	return c.queryRow(crossRenameQuery + c.e.d.forUpdate).Scan(&v)
}

// crossRenameQuery reads the row that serialises cross-directory renames.
const crossRenameQuery = "SELECT value FROM cairn_counter WHERE name = 'rename'"

// isAncestor reports whether directory dir is dir itself or an ancestor of
// ino. Callers hold the cross-directory rename lock.
func (c *conn) isAncestor(dir, ino meta.Ino) (bool, error) {
	for i := 0; i < 1<<16; i++ {
		if ino == dir {
			return true, nil
		}
		if ino == meta.RootIno {
			return false, nil
		}
		a, err := c.getNode(ino, false)
		if err != nil {
			return false, err
		}
		ino = a.Parent
	}
	return false, fmt.Errorf("directory %d: parent chain too long, the tree may hold a loop: %w", ino, meta.ErrIO)
}
