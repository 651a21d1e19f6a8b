package sql

import (
	"context"
	"errors"
	"fmt"

	"cairn/meta"
)

var _ meta.InodeReplacer = (*Engine)(nil)

// refBatch is how many slices one statement adds references to or takes
// out of the dead-slice queue (three parameters each, far below every
// dialect's limit).
const refBatch = 500

// ReplaceInodes implements meta.InodeReplacer in one transaction; slice
// references cost a statement per refBatch slices, not one per slice.
func (e *Engine) ReplaceInodes(ctx context.Context, states []meta.InodeState) (meta.Replaced, error) {
	var out meta.Replaced
	err := e.txn(ctx, func(c *conn) error {
		out = meta.Replaced{}
		var added []meta.Slice
		var space, inodes int64
		for i := range states {
			old, err := c.dropInodeRecords(states[i].Ino)
			if err != nil {
				return err
			}
			out.Kept = append(out.Kept, old.slices...)
			space -= old.space
			inodes -= old.inodes
			entries := map[string]meta.Ino{}
			for j := range states[i].Records {
				rec := &states[i].Records[j]
				if rec.Ino != states[i].Ino {
					return fmt.Errorf("a record of inode %d among inode %d's: %w", rec.Ino, states[i].Ino, meta.ErrInvalid)
				}
				if err := c.insertRecord(rec); err != nil {
					return err
				}
				switch rec.Kind {
				case meta.DumpInode:
					space += spaceOf(&rec.Attr)
					inodes++
				case meta.DumpChunk:
					added = append(added, rec.Slices...)
				case meta.DumpEntry:
					entries[rec.Name] = rec.Child
				}
			}
			out.Moved = append(out.Moved, meta.MovedChildren(old.entries, entries)...)
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
	})
	if err != nil {
		return meta.Replaced{}, fmt.Errorf("replace %d inodes: %w", len(states), e.explain(err))
	}
	return out, nil
}

// DropReferences implements meta.InodeReplacer, in one transaction.
func (e *Engine) DropReferences(ctx context.Context, slices []meta.Slice) error {
	if err := e.txn(ctx, func(c *conn) error { return c.dropRefs(slices) }); err != nil {
		return fmt.Errorf("drop %d slice references: %w", len(slices), e.explain(err))
	}
	return nil
}

// droppedInode is what dropInodeRecords took away.
type droppedInode struct {
	slices        []meta.Slice
	space, inodes int64
	entries       map[string]meta.Ino // a directory's, name to child
}

// dropInodeRecords deletes every row of ino (its entries as a directory
// included) and returns the slice records its chunks held, what it
// counted in Usage and its entries as a directory.
func (c *conn) dropInodeRecords(ino meta.Ino) (droppedInode, error) {
	var out droppedInode
	a, err := c.getNode(ino, true)
	switch {
	case err == nil:
		out.space, out.inodes = spaceOf(&a), 1
	case !isNoRows(err) && !errors.Is(err, meta.ErrNotFound):
		return out, err
	}
	if err == nil && a.Type == meta.TypeDirectory {
		if out.entries, err = c.edges(ino); err != nil {
			return out, err
		}
	}
	if out.slices, err = c.sliceRecords("SELECT slices FROM cairn_chunk WHERE ino = ?", int64(ino)); err != nil {
		return out, err
	}
	for _, q := range []string{
		"DELETE FROM cairn_node WHERE ino = ?",
		"DELETE FROM cairn_edge WHERE parent = ?",
		"DELETE FROM cairn_symlink WHERE ino = ?",
		"DELETE FROM cairn_xattr WHERE ino = ?",
		"DELETE FROM cairn_chunk WHERE ino = ?",
	} {
		if _, err := c.exec(q, int64(ino)); err != nil {
			return out, err
		}
	}
	return out, nil
}

// edges is directory ino's entries, name to child.
func (c *conn) edges(ino meta.Ino) (map[string]meta.Ino, error) {
	rows, err := c.query("SELECT name, ino FROM cairn_edge WHERE parent = ?", int64(ino))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]meta.Ino{}
	for rows.Next() {
		var name []byte
		var child int64
		if err := rows.Scan(&name, &child); err != nil {
			return nil, err
		}
		out[string(name)] = meta.Ino(child)
	}
	return out, rows.Err()
}

// insertRecord writes one record of an inode.
func (c *conn) insertRecord(rec *meta.DumpRecord) error {
	ino := int64(rec.Ino)
	var err error
	switch rec.Kind {
	case meta.DumpInode:
		err = c.insertNode(rec.Ino, &rec.Attr)
	case meta.DumpEntry:
		err = c.insertEdge(rec.Ino, rec.Name, rec.Child, rec.Type)
	case meta.DumpSymlink:
		_, err = c.exec("INSERT INTO cairn_symlink (ino, target) VALUES (?, ?)", ino, blobArg([]byte(rec.Target)))
	case meta.DumpXattr:
		_, err = c.exec("INSERT INTO cairn_xattr (ino, name, value) VALUES (?, ?, ?)", ino, nameArg(rec.Name), blobArg(rec.Value))
	case meta.DumpChunk:
		_, err = c.exec("INSERT INTO cairn_chunk (ino, idx, slices) VALUES (?, ?, ?)", ino, int64(rec.Index), meta.EncodeSliceRecords(rec.Slices))
	default:
		err = fmt.Errorf("a record of kind %d cannot replace an inode's: %w", rec.Kind, meta.ErrInvalid)
	}
	return err
}

// RaiseCounters implements meta.InodeReplacer. A counter holds the last
// value handed out.
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
