package sql

import (
	dbsql "database/sql"
	"errors"
	"strings"
	"time"

	"cairn/meta"
)

// nodeCols are cairn_node's attribute columns, in scanAttr's order.
const nodeCols = "ftype, mode, uid, gid, rdev, nlink, length, atime, mtime, ctime, parent"

func nowNs() int64 { return time.Now().UnixNano() }

type scanner interface{ Scan(dest ...any) error }

// scanAttr reads nodeCols, after the leading columns in extra.
func scanAttr(sc scanner, a *meta.Attr, extra ...any) error {
	dest, finish := attrDest(a)
	if err := sc.Scan(append(extra, dest...)...); err != nil {
		return err
	}
	finish()
	return nil
}

// attrDest is Scan destinations for nodeCols and a function that stores
// what they read in a.
func attrDest(a *meta.Attr) ([]any, func()) {
	var cols [nodeColumns]int64
	dest := make([]any, nodeColumns)
	for i := range cols {
		dest[i] = &cols[i]
	}
	return dest, func() { *a = attrOf(&cols) }
}

// nodeColumns is how many columns nodeCols (and joinCols) name.
const nodeColumns = 11

// attrOf is the attributes in the columns of nodeCols, in their order.
func attrOf(c *[nodeColumns]int64) meta.Attr {
	return meta.Attr{Type: meta.FileType(c[0]), Mode: uint16(c[1]), Uid: uint32(c[2]), Gid: uint32(c[3]),
		Rdev: uint32(c[4]), Nlink: uint32(c[5]), Length: uint64(c[6]), Atime: c[7], Mtime: c[8], Ctime: c[9],
		Parent: meta.Ino(c[10])}
}

func attrArgs(a *meta.Attr) []any {
	return []any{int64(a.Type), int64(a.Mode), int64(a.Uid), int64(a.Gid), int64(a.Rdev), int64(a.Nlink),
		int64(a.Length), a.Atime, a.Mtime, a.Ctime, int64(a.Parent)}
}

// getNode reads an inode's attributes; lock holds its row until commit.
func (c *conn) getNode(ino meta.Ino, lock bool) (meta.Attr, error) {
	var a meta.Attr
	err := scanNode(c.queryRow(c.nodeQuery(lock), int64(ino)), &a)
	return a, err
}

// nodeQuery reads one inode's nodeCols; lock holds its row until commit.
func (c *conn) nodeQuery(lock bool) string {
	q := "SELECT " + nodeCols + " FROM cairn_node WHERE ino = ?"
	if lock {
		q += c.e.d.forUpdate
	}
	return q
}

// scanNode reads nodeQuery's row into a; no row is meta.ErrNotFound.
func scanNode(sc scanner, a *meta.Attr) error {
	err := scanAttr(sc, a)
	if errors.Is(err, dbsql.ErrNoRows) {
		return meta.ErrNotFound
	}
	return err
}

// lockNodes reads and locks several inodes in one statement, in inode
// order so that concurrent transactions queue instead of deadlocking.
// Inodes that do not exist are missing from the map.
func (c *conn) lockNodes(inos ...meta.Ino) (map[meta.Ino]*meta.Attr, error) {
	args := make([]any, len(inos))
	for i, ino := range inos {
		args[i] = int64(ino)
	}
	rows, err := c.query(c.lockNodesQuery(len(inos)), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[meta.Ino]*meta.Attr, len(inos))
	return out, scanNodes(rows, out)
}

// lockNodesQuery locks n inodes in inode order and reads ino and
// nodeCols of each.
func (c *conn) lockNodesQuery(n int) string {
	marks := strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
	return "SELECT ino, " + nodeCols + " FROM cairn_node WHERE ino IN (" + marks + ") ORDER BY ino" + c.e.d.forUpdate
}

// scanNodes reads rows of ino and nodeCols into out, until the result
// set ends (it does not close rows).
func scanNodes(rows *dbsql.Rows, out map[meta.Ino]*meta.Attr) error {
	for rows.Next() {
		var ino int64
		a := new(meta.Attr)
		if err := scanAttr(rows, a, &ino); err != nil {
			return err
		}
		out[meta.Ino(ino)] = a
	}
	return rows.Err()
}

func (c *conn) insertNode(ino meta.Ino, a *meta.Attr) error {
	_, err := c.exec("INSERT INTO cairn_node (ino, "+nodeCols+") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		append([]any{int64(ino)}, attrArgs(a)...)...)
	return err
}

func (c *conn) putNode(ino meta.Ino, a *meta.Attr) error {
	_, err := c.exec("UPDATE cairn_node SET ftype = ?, mode = ?, uid = ?, gid = ?, rdev = ?, nlink = ?, "+
		"length = ?, atime = ?, mtime = ?, ctime = ?, parent = ? WHERE ino = ?",
		append(attrArgs(a), int64(ino))...)
	return err
}

// touchDir sets a directory's mtime and ctime and its nlink.
func (c *conn) touchDir(ino meta.Ino, a *meta.Attr, now int64) error {
	a.Mtime, a.Ctime = now, now
	_, err := c.exec("UPDATE cairn_node SET nlink = ?, mtime = ?, ctime = ? WHERE ino = ?",
		int64(a.Nlink), now, now, int64(ino))
	return err
}

// addUsage changes the volume's usage counters in the connection's row
// (usage.go); it is the last statement of a transaction, so that the row
// is held as briefly as possible and always after the inode rows (no
// lock-order cycle).
func (c *conn) addUsage(space, inodes int64) error {
	if space == 0 && inodes == 0 {
		return nil
	}
	_, err := c.exec(c.e.addUsageQuery, space, inodes)
	return err
}

// spaceOf is what an inode adds to Usage.Space.
func spaceOf(a *meta.Attr) int64 {
	if a.Type != meta.TypeFile {
		return 0
	}
	return int64((a.Length + 4095) &^ 4095)
}

// nameArg is a name as a bytewise-compared parameter (never NULL).
func nameArg(s string) []byte {
	if s == "" {
		return []byte{}
	}
	return []byte(s)
}

// blobArg is a value that is never NULL, even when empty.
func blobArg(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// getEdge finds name in parent.
func (c *conn) getEdge(parent meta.Ino, name string) (ino meta.Ino, typ meta.FileType, found bool, err error) {
	err = scanEdge(c.queryRow(edgeQuery, int64(parent), nameArg(name)), &ino, &typ, &found)
	return ino, typ, found, err
}

// edgeQuery reads one entry of a directory: parent, name.
const edgeQuery = "SELECT ino, ftype FROM cairn_edge WHERE parent = ? AND name = ?"

// scanEdge reads edgeQuery's row; no row is found == false.
func scanEdge(sc scanner, ino *meta.Ino, typ *meta.FileType, found *bool) error {
	var i, t int64
	err := sc.Scan(&i, &t)
	if errors.Is(err, dbsql.ErrNoRows) {
		*ino, *typ, *found = 0, 0, false
		return nil
	}
	*ino, *typ, *found = meta.Ino(i), meta.FileType(t), err == nil
	return err
}

func (c *conn) insertEdge(parent meta.Ino, name string, ino meta.Ino, typ meta.FileType) error {
	_, err := c.exec("INSERT INTO cairn_edge (parent, name, ino, ftype) VALUES (?, ?, ?, ?)",
		int64(parent), nameArg(name), int64(ino), int64(typ))
	return err
}

func (c *conn) deleteEdge(parent meta.Ino, name string) error {
	_, err := c.exec("DELETE FROM cairn_edge WHERE parent = ? AND name = ?", int64(parent), nameArg(name))
	return err
}

// checkLimits refuses growth past the volume's capacity or inode limit.
func (c *conn) checkLimits(space, inodes int64) error {
	f := c.e.limits.Load()
	if f == nil || (f.Capacity == 0 && f.Inodes == 0) || (space <= 0 && inodes <= 0) {
		return nil
	}
	used, count, err := c.usage()
	if err != nil {
		return err
	}
	if f.Capacity > 0 && space > 0 && uint64(used+space) > f.Capacity {
		return meta.ErrNoSpace
	}
	if f.Inodes > 0 && inodes > 0 && uint64(count+inodes) > f.Inodes {
		return meta.ErrNoSpace
	}
	return nil
}

func isNoRows(err error) bool { return errors.Is(err, dbsql.ErrNoRows) }
