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
	if e.d.routines {
		moved, attr, replaced, err = e.renameRoutine(ctx, cred, sp, sn, dp, dn, flags, sid)
		if err != errMissingRoutine {
			return moved, attr, replaced, err
		}
	}
	err = e.txn(ctx, func(c *conn) error {
		r := renameOp{c: c, cred: cred, sp: sp, sn: sn, dp: dp, dn: dn, sid: sid, now: nowNs(),
			noReplace: flags&meta.RenameNoReplace != 0, exchange: flags&meta.RenameExchange != 0,
			emptyDir: flags&meta.RenameEmptyDir != 0}
		err := r.run()
		moved, attr, replaced = r.moved, r.attr, r.replaced
		return err
	})
	if err != nil {
		return 0, meta.Attr{}, 0, err
	}
	return moved, attr, replaced, nil
}

// renameOp is one attempt of Rename's general transaction: a fresh one
// for each run of the transaction's closure.
type renameOp struct {
	c                   *conn
	cred                meta.Cred
	sp, dp              meta.Ino
	sn, dn              string
	sid                 uint64
	now                 int64
	noReplace, exchange bool
	emptyDir            bool // the source must be an empty directory

	spa, dpa        *meta.Attr // the parents, one Attr when sp == dp
	srcIno, dstIno  meta.Ino
	srcFound        bool
	dstFound        bool
	src, dst        *meta.Attr // dst nil when there is no destination
	removeDir       bool       // dst is a directory being replaced
	moved, replaced meta.Ino
	attr            meta.Attr
}

// run is the rename's steps, each check in the order Linux makes it.
func (r *renameOp) run() error {
	nodes, err := r.read()
	if err != nil {
		return err
	}
	if err := r.checkParents(); err != nil {
		return err
	}
	if err := r.checkEntries(); err != nil {
		return err
	}
	if err := r.lockInodes(nodes); err != nil {
		return err
	}
	r.moved, r.attr = r.srcIno, *r.src
	if r.dstFound && r.srcIno == r.dstIno {
		return nil // two names of one inode: nothing to do
	}
	if err := r.checkLoops(); err != nil {
		return err
	}
	if err := r.checkPermissions(); err != nil {
		return err
	}
	if err := r.checkEmptySource(); err != nil {
		return err
	}
	if r.exchange {
		err = r.swap()
	} else {
		err = r.move()
	}
	if err != nil {
		return err
	}
	return r.finish()
}

// read locks the parents and reads both entries; on MySQL, where all of
// it is one round trip, it also locks the inodes the entries name and
// returns them (nil otherwise). A move between directories first takes
// the cross-directory rename lock.
func (r *renameOp) read() (map[meta.Ino]*meta.Attr, error) {
	c := r.c
	var srcType, dstType meta.FileType
	parents := make(map[meta.Ino]*meta.Attr, 2)
	var nodes map[meta.Ino]*meta.Attr
	steps := []readStep{
		{q: c.lockNodesQuery(2), args: []any{int64(r.sp), int64(r.dp)}, all: func(rows *dbsql.Rows) error {
			return scanNodes(rows, parents)
		}},
		{q: edgeQuery, args: []any{int64(r.sp), nameArg(r.sn)}, scan: func(sc scanner) error {
			return scanEdge(sc, &r.srcIno, &srcType, &r.srcFound)
		}},
		{q: edgeQuery, args: []any{int64(r.dp), nameArg(r.dn)}, scan: func(sc scanner) error {
			return scanEdge(sc, &r.dstIno, &dstType, &r.dstFound)
		}},
	}
	if c.batch && c.e.d.batchReads {
		if r.sp != r.dp {
			steps = append([]readStep{{q: crossRenameQuery + c.e.d.forUpdate, scan: func(sc scanner) error {
				var v int64
				return sc.Scan(&v)
			}}}, steps...)
		}
		nodes = make(map[meta.Ino]*meta.Attr, 2)
		steps = append(steps, readStep{q: "SELECT ino, " + nodeCols + " FROM cairn_node WHERE ino IN (" +
			"SELECT ino FROM cairn_edge WHERE parent = ? AND name = ? OR parent = ? AND name = ?) ORDER BY ino" + c.e.d.forUpdate,
			args: []any{int64(r.sp), nameArg(r.sn), int64(r.dp), nameArg(r.dn)}, all: func(rows *dbsql.Rows) error {
				return scanNodes(rows, nodes)
			}})
	} else if r.sp != r.dp {
		if err := c.lockCrossDirectoryRenames(); err != nil {
			return nil, err
		}
	}
	if err := c.readSeq(steps...); err != nil {
		return nil, err
	}
	r.spa, r.dpa = parents[r.sp], parents[r.dp]
	return nodes, nil
}

// lockInodes locks the inodes the entries name, unless read already has
// (nodes), and keeps their attributes.
func (r *renameOp) lockInodes(nodes map[meta.Ino]*meta.Attr) error {
	if nodes == nil {
		inodes := []meta.Ino{r.srcIno}
		if r.dstFound {
			inodes = append(inodes, r.dstIno)
		}
		var err error
		if nodes, err = r.c.lockNodes(inodes...); err != nil {
			return err
		}
	}
	r.src, r.dst = nodes[r.srcIno], nodes[r.dstIno]
	if r.src == nil || (r.dstFound && r.dst == nil) {
		return fmt.Errorf("entry names a missing inode: %w", meta.ErrIO)
	}
	return nil
}

// swap is RENAME_EXCHANGE: each entry names the other's inode.
func (r *renameOp) swap() error {
	c := r.c
	if err := c.pointEdge(r.sp, r.sn, r.dstIno, r.dst.Type); err != nil {
		return err
	}
	if err := c.pointEdge(r.dp, r.dn, r.srcIno, r.src.Type); err != nil {
		return err
	}
	if r.sp != r.dp {
		c.reparent(r.src, r.spa, r.dpa, r.dp)
		c.reparent(r.dst, r.dpa, r.spa, r.sp)
	}
	r.dst.Ctime = r.now
	return c.putNode(r.dstIno, r.dst)
}

// move makes the destination name the source's inode and removes the
// source's entry. A replaced directory must be empty and is removed by
// finish; a replaced file loses a link, and when that was its last, is
// the rename's replaced inode.
func (r *renameOp) move() error {
	c := r.c
	if r.dstFound && r.dst.IsDir() {
		if err := c.checkEmpty(r.dstIno); err != nil {
			return err
		}
	}
	if r.dstFound {
		if r.dst.IsDir() {
			r.dpa.Nlink--
			r.removeDir = true
		} else {
			if err := c.dropLink(r.dstIno, r.dst, r.now, r.sid); err != nil {
				return err
			}
			if r.dst.Nlink == 0 {
				r.replaced = r.dstIno
			}
		}
		if err := c.pointEdge(r.dp, r.dn, r.srcIno, r.src.Type); err != nil {
			return err
		}
	} else if err := c.insertEdge(r.dp, r.dn, r.srcIno, r.src.Type); err != nil {
		return err
	}
	if err := c.deleteEdge(r.sp, r.sn); err != nil {
		return err
	}
	if r.sp != r.dp {
		c.reparent(r.src, r.spa, r.dpa, r.dp)
	}
	return nil
}

// finish stores the moved inode and the parents' new times and link
// counts, and removes a replaced directory.
func (r *renameOp) finish() error {
	c := r.c
	r.src.Ctime = r.now
	if err := c.putNode(r.srcIno, r.src); err != nil {
		return err
	}
	r.attr = *r.src
	if err := c.touchDir(r.sp, r.spa, r.now); err != nil {
		return err
	}
	if r.sp != r.dp {
		if err := c.touchDir(r.dp, r.dpa, r.now); err != nil {
			return err
		}
	}
	if r.removeDir {
		return c.removeInode(r.dstIno, r.dst)
	}
	return nil
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
