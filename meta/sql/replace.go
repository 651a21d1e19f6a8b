package sql

import (
	"context"
	"errors"
	"fmt"

	"cairn/meta"
)

var _ meta.InodeReplacer = (*Engine)(nil)

// ReplaceInodes implements meta.InodeReplacer.
func (e *Engine) ReplaceInodes(ctx context.Context, states []meta.InodeState) error {
	err := e.txn(ctx, func(c *conn) error {
		var added, dropped []meta.Slice
		var space, inodes int64
		for i := range states {
			old, err := c.dropInodeRecords(states[i].Ino)
			if err != nil {
				return err
			}
			dropped = append(dropped, old.slices...)
			space -= old.space
			inodes -= old.inodes
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
				}
			}
		}
		ids := map[uint64]bool{}
		for _, s := range added {
			if err := c.addRef(s); err != nil {
				return err
			}
			ids[s.ID] = true
		}
		for id := range ids {
			if _, err := c.exec("DELETE FROM cairn_dead WHERE id = ?", int64(id)); err != nil {
				return err
			}
		}
		if err := c.dropRefs(dropped); err != nil {
			return err
		}
		return c.addUsage(space, inodes)
	})
	if err != nil {
		return fmt.Errorf("replace %d inodes: %w", len(states), e.explain(err))
	}
	return nil
}

// droppedInode is what dropInodeRecords took away.
type droppedInode struct {
	slices        []meta.Slice
	space, inodes int64
}

// dropInodeRecords deletes every row of ino (its entries as a directory
// included) and returns the slice records its chunks held and what it
// counted in Usage.
func (c *conn) dropInodeRecords(ino meta.Ino) (droppedInode, error) {
	var out droppedInode
	a, err := c.getNode(ino, true)
	switch {
	case err == nil:
		out.space, out.inodes = spaceOf(&a), 1
	case !isNoRows(err) && !errors.Is(err, meta.ErrNotFound):
		return out, err
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
