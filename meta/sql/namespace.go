package sql

import (
	"context"
	"fmt"

	"cairn/meta"
)

// maxLinks bounds a file's hard links, as ext4's 65000 does.
const maxLinks = 65000

// lockDirEntry locks directory parent, checks that cred may search it,
// and then finds name in it. The entry is read by a statement of its own
// after the lock: a subquery in the locking statement would read the
// snapshot from before the wait (PostgreSQL, READ COMMITTED) and miss an
// entry the previous holder of the lock just made. On MySQL both
// statements go in one round trip (readPair).
func (c *conn) lockDirEntry(parent meta.Ino, name string, cred meta.Cred) (p meta.Attr, child meta.Ino, found bool, err error) {
	var typ meta.FileType
	err = c.readPair(c.nodeQuery(true), []any{int64(parent)}, func(sc scanner) error {
		if err := scanNode(sc, &p); err != nil {
			return err
		}
		if !p.IsDir() {
			return meta.ErrNotDir
		}
		return meta.Access(&p, cred, meta.MayExec)
	}, edgeQuery, []any{int64(parent), nameArg(name)}, func(sc scanner) error {
		return scanEdge(sc, &child, &typ, &found)
	})
	if err != nil {
		return p, 0, false, err
	}
	return p, child, found, nil
}

// lockDirEntryNode is lockDirEntry that then also locks and reads the
// entry's inode, an entry that must exist. On MySQL all three statements
// go in one round trip: the inode is found by a subquery on the entry,
// which cannot change while the directory's row is locked.
//
// With empty set (rmdir), MySQL also learns in the same round trip
// whether the inode, if a directory, has entries: read after its lock, so
// nobody can add one before commit. Elsewhere empty.known stays false.
func (c *conn) lockDirEntryNode(parent meta.Ino, name string, cred meta.Cred, empty *dirEmptiness) (p meta.Attr, child meta.Ino, a meta.Attr, err error) {
	if !c.batch || !c.e.d.batchReads {
		p, child, found, err := c.lockDirEntry(parent, name, cred)
		if err == nil && !found {
			err = meta.ErrNotFound
		}
		if err != nil {
			return p, 0, a, err
		}
		a, err = c.getNode(child, true)
		return p, child, a, err
	}
	var typ meta.FileType
	var found bool
	steps := []readStep{{q: c.nodeQuery(true), args: []any{int64(parent)}, scan: func(sc scanner) error {
		if err := scanNode(sc, &p); err != nil {
			return err
		}
		if !p.IsDir() {
			return meta.ErrNotDir
		}
		return meta.Access(&p, cred, meta.MayExec)
	}}, {q: edgeQuery, args: []any{int64(parent), nameArg(name)}, scan: func(sc scanner) error {
		if err := scanEdge(sc, &child, &typ, &found); err != nil {
			return err
		}
		if !found {
			return meta.ErrNotFound
		}
		return nil
	}}, {q: "SELECT ino, " + nodeCols + " FROM cairn_node WHERE ino = (" +
		"SELECT ino FROM cairn_edge WHERE parent = ? AND name = ?)" + c.e.d.forUpdate,
		args: []any{int64(parent), nameArg(name)}, scan: func(sc scanner) error {
			var ino int64
			err := scanAttr(sc, &a, &ino)
			if isNoRows(err) || (err == nil && meta.Ino(ino) != child) {
				return fmt.Errorf("entry %q of directory %d names inode %d, which is missing: %w", name, parent, child, meta.ErrIO)
			}
			return err
		}}}
	if empty != nil {
		steps = append(steps, readStep{q: "SELECT 1 FROM cairn_edge WHERE parent = (" +
			"SELECT ino FROM cairn_edge WHERE parent = ? AND name = ?) LIMIT 1",
			args: []any{int64(parent), nameArg(name)}, scan: func(sc scanner) error {
				var one int64
				err := sc.Scan(&one)
				empty.known, empty.hasEntries = true, err == nil
				if isNoRows(err) {
					return nil
				}
				return err
			}})
	}
	err = c.readSeq(steps...)
	return p, child, a, err
}

// dirEmptiness is what lockDirEntryNode learnt of a directory's entries.
type dirEmptiness struct{ known, hasEntries bool }

// Mknod creates an inode of any type and its entry.
func (e *Engine) Mknod(ctx context.Context, cred meta.Cred, parent meta.Ino, name string, ino meta.Ino, typ meta.FileType, mode uint16, rdev uint32, target string) (meta.Attr, error) {
	if e.d.routines {
		a, err := e.mknodRoutine(ctx, cred, parent, name, ino, typ, mode, rdev, target)
		if err != errMissingRoutine {
			return a, err
		}
	}
	var a meta.Attr
	err := e.txn(ctx, func(c *conn) error {
		now := nowNs()
		p, _, found, err := c.lockDirEntry(parent, name, cred)
		if err != nil {
			return err
		}
		if found {
			return meta.ErrExists
		}
		if err := meta.Access(&p, cred, meta.MayWrite|meta.MayExec); err != nil {
			return err
		}
		if err := c.checkLimits(0, 1); err != nil {
			return err
		}
		a = meta.InitAttr(&p, cred, typ, mode, rdev, now)
		switch typ {
		case meta.TypeDirectory:
			a.Parent = parent
			p.Nlink++
		case meta.TypeSymlink:
			a.Length = uint64(len(target))
			if _, err := c.exec("INSERT INTO cairn_symlink (ino, target) VALUES (?, ?)", int64(ino), []byte(target)); err != nil {
				return err
			}
		}
		if err := c.insertNode(ino, &a); err != nil {
			return err
		}
		if err := c.insertEdge(parent, name, ino, typ); err != nil {
			return err
		}
		if err := c.touchDir(parent, &p, now); err != nil {
			return err
		}
		return c.addUsage(spaceOf(&a), 1)
	})
	return a, err
}

// Link adds parent/name for an existing non-directory.
func (e *Engine) Link(ctx context.Context, cred meta.Cred, ino meta.Ino, parent meta.Ino, name string) (meta.Attr, error) {
	if e.d.routines {
		a, err := e.linkRoutine(ctx, cred, ino, parent, name)
		if err != errMissingRoutine {
			return a, err
		}
	}
	var a meta.Attr
	err := e.txn(ctx, func(c *conn) error {
		now := nowNs()
		nodes, err := c.lockNodes(ino, parent)
		if err != nil {
			return err
		}
		p, f := nodes[parent], nodes[ino]
		if p == nil {
			return meta.ErrNotFound
		}
		if !p.IsDir() {
			return meta.ErrNotDir
		}
		if err := meta.Access(p, cred, meta.MayExec); err != nil {
			return err
		}
		if f == nil {
			return meta.ErrNotFound
		}
		if _, _, found, err := c.getEdge(parent, name); err != nil {
			return err
		} else if found {
			return meta.ErrExists
		}
		if err := meta.Access(p, cred, meta.MayWrite|meta.MayExec); err != nil {
			return err
		}
		if f.IsDir() {
			return meta.ErrNotPermitted
		}
		if f.Nlink == 0 {
			return meta.ErrNotFound
		}
		if f.Nlink >= maxLinks {
			return meta.ErrTooManyLinks
		}
		f.Nlink++
		f.Ctime = now
		if _, err := c.exec("UPDATE cairn_node SET nlink = ?, ctime = ? WHERE ino = ?", int64(f.Nlink), now, int64(ino)); err != nil {
			return err
		}
		if err := c.insertEdge(parent, name, ino, f.Type); err != nil {
			return err
		}
		a = *f
		return c.touchDir(parent, p, now)
	})
	return a, err
}

// Unlink removes a non-directory's entry; an inode left without links
// becomes an orphan of session sid.
func (e *Engine) Unlink(ctx context.Context, cred meta.Cred, parent meta.Ino, name string, sid uint64) (meta.Ino, meta.Attr, error) {
	if e.d.routines {
		ino, a, _, err := e.unlinkRoutine(ctx, cred, parent, name, sid, 0)
		if err != errMissingRoutine {
			return ino, a, err
		}
	}
	var ino meta.Ino
	var a meta.Attr
	err := e.txn(ctx, func(c *conn) (err error) {
		ino, a, _, err = c.unlink(cred, parent, name, sid, 0)
		return err
	})
	return ino, a, err
}

// unlink is Unlink's transaction. When the entry is the last link of
// inode remove (UnlinkDelete: nobody here holds it open), the inode is
// deleted at once instead of kept as sid's orphan, and unlink reports
// that it was; remove 0 keeps every inode.
func (c *conn) unlink(cred meta.Cred, parent meta.Ino, name string, sid uint64, remove meta.Ino) (meta.Ino, meta.Attr, bool, error) {
	now := nowNs()
	p, child, a, err := c.lockDirEntryNode(parent, name, cred, nil)
	if err != nil {
		return 0, a, false, err
	}
	if err := meta.MayDelete(&p, &a, cred); err != nil {
		return 0, a, false, err
	}
	if a.IsDir() {
		return 0, a, false, meta.ErrIsDir
	}
	if err := c.deleteEdge(parent, name); err != nil {
		return 0, a, false, err
	}
	last := a.Nlink == 1 && child == remove
	if last {
		a.Nlink, a.Ctime = 0, now
	} else if err := c.dropLink(child, &a, now, sid); err != nil {
		return 0, a, false, err
	}
	if err := c.touchDir(parent, &p, now); err != nil {
		return 0, a, false, err
	}
	if !last {
		return child, a, false, nil
	}
	// The inode's rows go without the orphan row and the link count
	// written first: removeInode ends with the usage row, after every
	// inode row, as each transaction must.
	return child, a, true, c.removeInode(child, &a)
}

// dropLink takes one link from a non-directory whose entry is gone; the
// last one makes it an orphan of sid.
func (c *conn) dropLink(ino meta.Ino, a *meta.Attr, now int64, sid uint64) error {
	a.Nlink--
	a.Ctime = now
	if _, err := c.exec("UPDATE cairn_node SET nlink = ?, ctime = ? WHERE ino = ?", int64(a.Nlink), now, int64(ino)); err != nil {
		return err
	}
	if a.Nlink > 0 {
		return nil
	}
	_, err := c.exec("INSERT INTO cairn_orphan (ino, sid) VALUES (?, ?)", int64(ino), int64(sid))
	return err
}

// Rmdir removes an empty directory.
func (e *Engine) Rmdir(ctx context.Context, cred meta.Cred, parent meta.Ino, name string) error {
	_, err := e.RmdirAt(ctx, cred, parent, name)
	return err
}

var _ meta.RmdirTimer = (*Engine)(nil)

// RmdirAt is Rmdir; the routine and the transaction set the parent's
// times to the clock they are given, see meta.RmdirTimer.
func (e *Engine) RmdirAt(ctx context.Context, cred meta.Cred, parent meta.Ino, name string) (int64, error) {
	if e.d.routines {
		now := nowNs()
		if err := e.rmdirRoutine(ctx, cred, parent, name, now); err != errMissingRoutine {
			if err != nil {
				return 0, err
			}
			return now, nil
		}
	}
	var changed int64
	err := e.txn(ctx, func(c *conn) error {
		now := nowNs()
		changed = now
		var empty dirEmptiness
		p, child, a, err := c.lockDirEntryNode(parent, name, cred, &empty)
		if err != nil {
			return err
		}
		if err := meta.MayDelete(&p, &a, cred); err != nil {
			return err
		}
		if !a.IsDir() {
			return meta.ErrNotDir
		}
		if empty.known {
			if empty.hasEntries {
				return meta.ErrNotEmpty
			}
		} else if err := c.checkEmpty(child); err != nil {
			return err
		}
		if err := c.deleteEdge(parent, name); err != nil {
			return err
		}
		p.Nlink--
		if err := c.touchDir(parent, &p, now); err != nil {
			return err
		}
		return c.removeInode(child, &a)
	})
	if err != nil {
		return 0, err
	}
	return changed, nil
}

// checkEmpty fails with ErrNotEmpty when directory ino has entries.
func (c *conn) checkEmpty(ino meta.Ino) error {
	rows, err := c.query("SELECT name FROM cairn_edge WHERE parent = ? LIMIT 1", int64(ino))
	if err != nil {
		return err
	}
	defer rows.Close()
	if rows.Next() {
		return meta.ErrNotEmpty
	}
	return rows.Err()
}

// removeInode deletes an inode that has no entry left and nobody holds:
// its attributes, xattrs, target, locks and chunks (whose slices may
// become dead), and takes it out of Usage.
func (c *conn) removeInode(ino meta.Ino, a *meta.Attr) error {
	stmts := []string{
		"DELETE FROM cairn_node WHERE ino = ?",
		"DELETE FROM cairn_xattr WHERE ino = ?",
		"DELETE FROM cairn_flock WHERE ino = ?",
		"DELETE FROM cairn_plock WHERE ino = ?",
	}
	switch a.Type {
	case meta.TypeSymlink:
		stmts = append(stmts, "DELETE FROM cairn_symlink WHERE ino = ?")
	case meta.TypeFile:
		if err := c.dropChunks(ino, 0); err != nil {
			return err
		}
	}
	for _, q := range stmts {
		if _, err := c.exec(q, int64(ino)); err != nil {
			return err
		}
	}
	return c.addUsage(-spaceOf(a), -1)
}

// ReleaseOrphan deletes an orphan of session sid.
func (e *Engine) ReleaseOrphan(ctx context.Context, sid uint64, ino meta.Ino) error {
	if e.d.routines {
		if err := e.releaseRoutine(ctx, sid, ino); err != errMissingRoutine {
			return err
		}
	}
	return e.txn(ctx, func(c *conn) error { return c.releaseOrphan(sid, ino) })
}

func (c *conn) releaseOrphan(sid uint64, ino meta.Ino) error {
	var owner int64
	if err := c.queryRow("SELECT sid FROM cairn_orphan WHERE ino = ?", int64(ino)).Scan(&owner); err != nil {
		if isNoRows(err) {
			return nil
		}
		return err
	}
	if uint64(owner) != sid {
		return nil
	}
	if _, err := c.exec("DELETE FROM cairn_orphan WHERE ino = ?", int64(ino)); err != nil {
		return err
	}
	a, err := c.getNode(ino, true)
	if err == meta.ErrNotFound || (err == nil && a.Nlink > 0) {
		return nil
	}
	if err != nil {
		return err
	}
	return c.removeInode(ino, &a)
}
