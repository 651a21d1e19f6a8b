package sql

import (
	"context"
	dbsql "database/sql"
	"errors"
	"math"
	"strings"

	"cairn/meta"
)

// Lookup finds name in parent with one indexed SELECT outside a
// transaction, which also tells a missing entry from a missing or
// non-directory parent: the parent's row, joined with the entry and its
// inode when they exist.
func (e *Engine) Lookup(ctx context.Context, parent meta.Ino, name string) (meta.Ino, meta.Attr, error) {
	var ino int64
	var a meta.Attr
	err := e.read(ctx, func(c *conn) error {
		var parentType, found int64
		err := scanAttr(c.queryRow(lookupQuery, nameArg(name), int64(parent)), &a, &parentType, &found, &ino)
		switch {
		case errors.Is(err, dbsql.ErrNoRows):
			return meta.ErrNotFound
		case err != nil:
			return err
		case meta.FileType(parentType) != meta.TypeDirectory:
			return meta.ErrNotDir
		case found == 0:
			return meta.ErrNotFound
		}
		return nil
	})
	if err != nil {
		return 0, meta.Attr{}, err
	}
	return meta.Ino(ino), a, nil
}

// lookupQuery reads, for a name and a parent, the parent's type, whether
// the entry and its inode exist, the inode's number and its nodeCols (zero
// when missing).
var lookupQuery = "SELECT p.ftype, COALESCE(n.ino, 0), COALESCE(e.ino, 0), " + coalesced("n.", nodeCols) +
	" FROM cairn_node p LEFT JOIN cairn_edge e ON e.parent = p.ino AND e.name = ?" +
	" LEFT JOIN cairn_node n ON n.ino = e.ino WHERE p.ino = ?"

// coalesced is the comma-separated columns cols, each of alias, as 0 when
// NULL.
func coalesced(alias, cols string) string {
	var out []string
	for _, c := range strings.Split(cols, ", ") {
		out = append(out, "COALESCE("+alias+c+", 0)")
	}
	return strings.Join(out, ", ")
}

// joinCols are nodeCols qualified by the alias n.
const joinCols = "ftype, n.mode, n.uid, n.gid, n.rdev, n.nlink, n.length, n.atime, n.mtime, n.ctime, n.parent"

// GetAttr reads an inode's attributes.
func (e *Engine) GetAttr(ctx context.Context, ino meta.Ino) (meta.Attr, error) {
	var a meta.Attr
	err := e.read(ctx, func(c *conn) (err error) {
		a, err = c.getNode(ino, false)
		return err
	})
	return a, err
}

// Readlink returns a symlink's target.
func (e *Engine) Readlink(ctx context.Context, ino meta.Ino) (string, error) {
	var target []byte
	err := e.read(ctx, func(c *conn) error {
		err := c.queryRow("SELECT target FROM cairn_symlink WHERE ino = ?", int64(ino)).Scan(&target)
		if errors.Is(err, dbsql.ErrNoRows) {
			if _, err := c.getNode(ino, false); err != nil {
				return err
			}
			return meta.ErrInvalid
		}
		return err
	})
	return string(target), err
}

// Readdir lists one page of a directory in byte order: one query, joined
// with the inodes when plus is set.
func (e *Engine) Readdir(ctx context.Context, ino meta.Ino, after string, limit int, plus bool) ([]meta.Entry, error) {
	if limit <= 0 {
		limit = math.MaxInt32
	}
	var out []meta.Entry
	err := e.read(ctx, func(c *conn) error {
		out = out[:0]
		var q string
		if plus {
			q = "SELECT e.name, e.ino, e." + joinCols + " FROM cairn_edge e JOIN cairn_node n ON n.ino = e.ino " +
				"WHERE e.parent = ? AND e.name > ? ORDER BY e.name LIMIT ?"
		} else {
			q = "SELECT name, ino, ftype FROM cairn_edge WHERE parent = ? AND name > ? ORDER BY name LIMIT ?"
		}
		rows, err := c.query(q, int64(ino), nameArg(after), limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var name []byte
			var child int64
			en := meta.Entry{}
			if plus {
				en.Attr = new(meta.Attr)
				err = scanAttr(rows, en.Attr, &name, &child)
				en.Type = en.Attr.Type
			} else {
				var typ int64
				err = rows.Scan(&name, &child, &typ)
				en.Type = meta.FileType(typ)
			}
			if err != nil {
				return err
			}
			en.Name, en.Ino = string(name), meta.Ino(child)
			out = append(out, en)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if len(out) == 0 {
			// The end, or no such directory: tell them apart.
			a, err := c.getNode(ino, false)
			if err != nil {
				return err
			}
			if !a.IsDir() {
				return meta.ErrNotDir
			}
		}
		return nil
	})
	if len(out) == 0 {
		out = nil
	}
	return out, err
}
