package kv

import (
	"context"
	"fmt"

	"cairn/meta"
)

var _ meta.InodeReplacer = (*Engine)(nil)

// ReplaceInodes implements meta.InodeReplacer, one inode per transaction
// (etcd takes 128 operations in one). A directory with more entries than
// one transaction holds fails on etcd.
func (e *Engine) ReplaceInodes(ctx context.Context, states []meta.InodeState) ([]meta.Slice, error) {
	var kept []meta.Slice
	for i := range states {
		var old []meta.Slice
		err := e.txn(ctx, func(t *txn) (err error) {
			old, err = t.replaceInode(&states[i])
			return err
		})
		if err != nil {
			return kept, fmt.Errorf("replace inode %d: %w", states[i].Ino, err)
		}
		kept = append(kept, old...)
	}
	return kept, nil
}

// dropPage is how many slice records one DropReferences transaction
// takes: a reference key and a dead-slice key each, within etcd's 128
// operations.
const dropPage = 60

// DropReferences implements meta.InodeReplacer, dropPage records per
// transaction.
func (e *Engine) DropReferences(ctx context.Context, slices []meta.Slice) error {
	for len(slices) > 0 {
		page := slices[:min(len(slices), dropPage)]
		slices = slices[len(page):]
		if err := e.txn(ctx, func(t *txn) error { return t.changeRefs(nil, page) }); err != nil {
			return fmt.Errorf("drop %d slice references: %w", len(page), err)
		}
	}
	return nil
}

// replaceInode replaces one inode's records and returns the slice records
// its old chunks held, whose references it keeps.
func (t *txn) replaceInode(s *meta.InodeState) ([]meta.Slice, error) {
	begin, end := t.k.inodeRange(s.Ino)
	kvs, err := t.scanAll(begin, end, 1000)
	if err != nil {
		return nil, err
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
					return nil, err
				}
				space -= spaceOf(&a)
				inodes--
			}
		case subChunk:
			list, err := meta.DecodeSliceRecords(kv.Value)
			if err != nil {
				return nil, err
			}
			removed = append(removed, list...)
		}
		t.del(kv.Key)
	}
	for i := range s.Records {
		r := &s.Records[i]
		if r.Ino != s.Ino {
			return nil, fmt.Errorf("a record of inode %d among inode %d's: %w", r.Ino, s.Ino, meta.ErrInvalid)
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
			return nil, fmt.Errorf("a record of kind %d cannot replace an inode's: %w", r.Kind, meta.ErrInvalid)
		}
	}
	for _, sl := range added {
		if sl.ID != 0 {
			t.del(t.k.dead(sl.ID)) // named again: not dead
		}
	}
	if err := t.changeRefs(added, nil); err != nil {
		return nil, err
	}
	t.addUsage(s.Ino, space, inodes)
	return removed, nil
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
