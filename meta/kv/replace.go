package kv

import (
	"context"
	"fmt"

	"cairn/meta"
)

var _ meta.InodeReplacer = (*Engine)(nil)

// ReplaceInodes implements meta.InodeReplacer, one inode per transaction
// (etcd takes 128 operations in one), the inodes that name slices first.
// A slice one inode of the call drops and a later one names may pass
// through the dead-slice queue in between; the later transaction takes it
// out again, and nothing deletes blocks of a DST nobody mounts yet. A
// directory with more entries than one transaction holds fails on etcd.
func (e *Engine) ReplaceInodes(ctx context.Context, states []meta.InodeState) error {
	// Inodes that add references first, those that only drop them last,
	// so that a slice moving between them is never dead in between.
	var adding, dropping []*meta.InodeState
	for i := range states {
		s := &states[i]
		has := false
		for _, r := range s.Records {
			has = has || (r.Kind == meta.DumpChunk && len(r.Slices) > 0)
		}
		if has {
			adding = append(adding, s)
		} else {
			dropping = append(dropping, s)
		}
	}
	for _, s := range append(adding, dropping...) {
		if err := e.txn(ctx, func(t *txn) error { return t.replaceInode(s) }); err != nil {
			return fmt.Errorf("replace inode %d: %w", s.Ino, err)
		}
	}
	return nil
}

func (t *txn) replaceInode(s *meta.InodeState) error {
	begin, end := t.k.inodeRange(s.Ino)
	kvs, err := t.scanAll(begin, end, 1000)
	if err != nil {
		return err
	}
	var space, inodes int64
	var added, removed []meta.Slice
	attrKey := string(t.k.attr(s.Ino))
	for _, kv := range kvs {
		sub := t.k.suffix(kv.Key, 8)[0]
		switch sub {
		case subFlock, subPlock:
			continue // a session's locks are not the inode's records
		case subAttr:
			if string(kv.Key) == attrKey {
				a, err := decodeAttr(kv.Value)
				if err != nil {
					return err
				}
				space -= spaceOf(&a)
				inodes--
			}
		case subChunk:
			list, err := meta.DecodeSliceRecords(kv.Value)
			if err != nil {
				return err
			}
			removed = append(removed, list...)
		}
		t.del(kv.Key)
	}
	for i := range s.Records {
		r := &s.Records[i]
		if r.Ino != s.Ino {
			return fmt.Errorf("a record of inode %d among inode %d's: %w", r.Ino, s.Ino, meta.ErrInvalid)
		}
		switch r.Kind {
		case meta.DumpInode:
			t.setAttr(s.Ino, &r.Attr)
			space += spaceOf(&r.Attr)
			inodes++
		case meta.DumpEntry:
			t.put(t.k.entry(s.Ino, r.Name), encodeEntry(r.Type, r.Child))
		case meta.DumpSymlink:
			t.put(t.k.symlink(s.Ino), []byte(r.Target))
		case meta.DumpXattr:
			t.put(t.k.xattr(s.Ino, r.Name), append([]byte{}, r.Value...))
		case meta.DumpChunk:
			t.put(t.k.chunk(s.Ino, r.Index), meta.EncodeSliceRecords(r.Slices))
			added = append(added, r.Slices...)
		default:
			return fmt.Errorf("a record of kind %d cannot replace an inode's: %w", r.Kind, meta.ErrInvalid)
		}
	}
	for _, sl := range added {
		if sl.ID != 0 {
			t.del(t.k.dead(sl.ID)) // named again: not dead
		}
	}
	if err := t.changeRefs(added, removed); err != nil {
		return err
	}
	t.addUsage(s.Ino, space, inodes)
	return nil
}

// RaiseCounters implements meta.InodeReplacer. A counter holds the next
// value to hand out.
func (e *Engine) RaiseCounters(ctx context.Context, nextInode, nextSlice uint64) error {
	err := e.txn(ctx, func(t *txn) error {
		for name, next := range map[string]uint64{counterInode: nextInode, counterSlice: nextSlice} {
			v, err := t.get(t.k.counter(name))
			if err != nil {
				return err
			}
			cur, err := counterValue(v)
			if err != nil {
				return err
			}
			if cur < next {
				t.put(t.k.counter(name), u64(next))
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("raise the id counters: %w", err)
	}
	return nil
}
