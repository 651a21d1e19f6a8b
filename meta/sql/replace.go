package sql

import (
	"context"
	"fmt"
	"strings"

	"cairn/meta"
)

var _ meta.InodeReplacer = (*Engine)(nil)

const (
	// refBatch is how many slices one statement adds references to or
	// takes out of the dead-slice queue, and how many inodes one
	// statement of ReplaceInodes reads or deletes.
	refBatch = 500
	// insertParams bounds the parameters of one multi-row INSERT, far
	// below every dialect's limit.
	insertParams = 900
)

// ReplaceInodes implements meta.InodeReplacer in one transaction, with
// statements for many inodes at once: a call costs about fifteen
// statements per refBatch inodes, not ten per inode.
func (e *Engine) ReplaceInodes(ctx context.Context, states []meta.InodeState) (meta.Replaced, error) {
	for i := range states {
		for j := range states[i].Records {
			rec := &states[i].Records[j]
			if rec.Ino != states[i].Ino {
				return meta.Replaced{}, fmt.Errorf("a record of inode %d among inode %d's: %w", rec.Ino, states[i].Ino, meta.ErrInvalid)
			}
			if rec.Kind < meta.DumpInode || rec.Kind > meta.DumpChunk {
				return meta.Replaced{}, fmt.Errorf("a record of kind %d cannot replace an inode's: %w", rec.Kind, meta.ErrInvalid)
			}
		}
	}
	var out meta.Replaced
	err := e.txn(ctx, func(c *conn) error {
		out = meta.Replaced{}
		for rest := states; len(rest) > 0; {
			group := rest[:min(len(rest), refBatch)]
			rest = rest[len(group):]
			if err := c.replaceGroup(group, &out); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return meta.Replaced{}, fmt.Errorf("replace %d inodes: %w", len(states), e.explain(err))
	}
	return out, nil
}

// replaceGroup replaces up to refBatch inodes, adding to out what they
// kept and moved.
func (c *conn) replaceGroup(states []meta.InodeState, out *meta.Replaced) error {
	inos := make([]meta.Ino, len(states))
	for i := range states {
		inos[i] = states[i].Ino
	}
	args := inoArgs(inos)
	in := " IN (" + marks(len(inos)) + ")"
	old, err := c.lockNodes(inos...)
	if err != nil {
		return err
	}
	var space, inodes int64
	var dirs []meta.Ino
	for ino, a := range old {
		space -= spaceOf(a)
		inodes--
		if a.Type == meta.TypeDirectory {
			dirs = append(dirs, ino)
		}
	}
	kept, err := c.sliceRecords("SELECT slices FROM cairn_chunk WHERE ino"+in, args...)
	if err != nil {
		return err
	}
	out.Kept = append(out.Kept, kept...)
	was, err := c.edgesOf(dirs)
	if err != nil {
		return err
	}
	for _, q := range []string{
		"DELETE FROM cairn_node WHERE ino",
		"DELETE FROM cairn_edge WHERE parent",
		"DELETE FROM cairn_symlink WHERE ino",
		"DELETE FROM cairn_xattr WHERE ino",
		"DELETE FROM cairn_chunk WHERE ino",
	} {
		if _, err := c.exec(q+in, args...); err != nil {
			return err
		}
	}
	var nodes, edges, symlinks, xattrs, chunks []any
	var added []meta.Slice
	for i := range states {
		now := map[string]meta.Ino{}
		for j := range states[i].Records {
			rec := &states[i].Records[j]
			ino := int64(rec.Ino)
			switch rec.Kind {
			case meta.DumpInode:
				nodes = append(append(nodes, ino), attrArgs(&rec.Attr)...)
				space += spaceOf(&rec.Attr)
				inodes++
			case meta.DumpEntry:
				edges = append(edges, ino, nameArg(rec.Name), int64(rec.Child), int64(rec.Type))
				now[rec.Name] = rec.Child
			case meta.DumpSymlink:
				symlinks = append(symlinks, ino, blobArg([]byte(rec.Target)))
			case meta.DumpXattr:
				xattrs = append(xattrs, ino, nameArg(rec.Name), blobArg(rec.Value))
			case meta.DumpChunk:
				chunks = append(chunks, ino, int64(rec.Index), meta.EncodeSliceRecords(rec.Slices))
				added = append(added, rec.Slices...)
			}
		}
		out.Moved = append(out.Moved, meta.MovedChildren(was[states[i].Ino], now)...)
	}
	for _, rows := range []struct {
		table string
		width int
		args  []any
	}{
		{"cairn_node (ino, " + nodeCols + ")", 12, nodes},
		{"cairn_edge (parent, name, ino, ftype)", 4, edges},
		{"cairn_symlink (ino, target)", 2, symlinks},
		{"cairn_xattr (ino, name, value)", 3, xattrs},
		{"cairn_chunk (ino, idx, slices)", 3, chunks},
	} {
		if err := c.insertRows(rows.table, rows.width, rows.args); err != nil {
			return err
		}
	}
	if err := c.addRefs(added); err != nil {
		return err
	}
	ids, _, _ := sliceCounts(added)
	for len(ids) > 0 {
		n := min(len(ids), refBatch)
		if _, err := c.exec("DELETE FROM cairn_dead WHERE id IN ("+marks(n)+")", idArgs(ids[:n])...); err != nil {
			return err
		}
		ids = ids[n:]
	}
	return c.addUsage(space, inodes)
}

// edgesOf is the entries of directories dirs, name to child by directory.
func (c *conn) edgesOf(dirs []meta.Ino) (map[meta.Ino]map[string]meta.Ino, error) {
	out := map[meta.Ino]map[string]meta.Ino{}
	if len(dirs) == 0 {
		return out, nil
	}
	rows, err := c.query("SELECT parent, name, ino FROM cairn_edge WHERE parent IN ("+marks(len(dirs))+")", inoArgs(dirs)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var parent, child int64
		var name []byte
		if err := rows.Scan(&parent, &name, &child); err != nil {
			return nil, err
		}
		if out[meta.Ino(parent)] == nil {
			out[meta.Ino(parent)] = map[string]meta.Ino{}
		}
		out[meta.Ino(parent)][string(name)] = meta.Ino(child)
	}
	return out, rows.Err()
}

// insertRows inserts rows of width values each, given end to end in
// args, into table (its name and columns), in statements of up to
// insertParams parameters.
func (c *conn) insertRows(table string, width int, args []any) error {
	row := "(" + marks(width) + ")"
	for len(args) > 0 {
		n := min(len(args)/width, max(1, insertParams/width))
		q := "INSERT INTO " + table + " VALUES " + strings.TrimSuffix(strings.Repeat(row+", ", n), ", ")
		if _, err := c.exec(q, args[:n*width]...); err != nil {
			return err
		}
		args = args[n*width:]
	}
	return nil
}

func inoArgs(inos []meta.Ino) []any {
	args := make([]any, len(inos))
	for i, ino := range inos {
		args[i] = int64(ino)
	}
	return args
}

// DropReferences implements meta.InodeReplacer, in one transaction.
func (e *Engine) DropReferences(ctx context.Context, slices []meta.Slice) error {
	if err := e.txn(ctx, func(c *conn) error { return c.dropRefs(slices) }); err != nil {
		return fmt.Errorf("drop %d slice references: %w", len(slices), e.explain(err))
	}
	return nil
}

func (e *Engine) RaiseCounters(ctx context.Context, nextInode, nextSlice uint64) error {
	err := e.txn(ctx, func(c *conn) error {
		for name, next := range map[string]uint64{"inode": nextInode, "slice": nextSlice} {
			if next == 0 {
				continue
			}
			if _, err := c.exec("UPDATE cairn_counter SET value = ? WHERE name = ? AND value < ?", int64(next-1), name, int64(next-1)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("raise the id counters: %w", e.explain(err))
	}
	return nil
}
