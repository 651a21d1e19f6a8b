package kv

import (
	"bytes"
	"context"
	"fmt"

	"cairn/meta"
)

var _ meta.InodeReplacer = (*Engine)(nil)

// ReplaceInodes implements meta.InodeReplacer. Nobody else writes the
// database meanwhile (the contract), so it reads what the inodes hold and
// the reference counts it will change in one transaction (on etcd one
// request per 128 inodes), works out the writes, and sends them without
// reads in transactions of up to replacePage writes: a call costs a read
// and as few commits as its writes need, and a directory of any size
// fits (etcd takes 128 operations in one transaction). Reference counts
// go first, so a call that fails part-way leaves counts too high at
// worst, never too low; it returns the references kept by the writes
// that committed, and the caller copies its inodes again (a retried
// round does).
func (e *Engine) ReplaceInodes(ctx context.Context, states []meta.InodeState) (meta.Replaced, error) {
	plan, moved, err := e.planReplace(ctx, states)
	if err != nil {
		return meta.Replaced{}, fmt.Errorf("replace %d inodes: %w", len(states), err)
	}
	out := meta.Replaced{Moved: moved}
	for len(plan) > 0 {
		n, size := 0, 0
		for n < len(plan) && n < replacePage && size < replacePageBytes {
			size += len(plan[n].key) + len(plan[n].value)
			n++
		}
		page := plan[:n]
		plan = plan[n:]
		err := e.txn(ctx, func(t *txn) error {
			for _, w := range page {
				if w.value == nil {
					t.del(w.key)
				} else {
					t.put(w.key, w.value)
				}
				t.addShardUsage(0, w.space, w.inodes)
			}
			return nil
		})
		if err != nil {
			return out, fmt.Errorf("replace %d inodes: %w", len(states), err)
		}
		for _, w := range page {
			out.Kept = append(out.Kept, w.kept...)
		}
	}
	return out, nil
}

// A ReplaceInodes transaction sends up to replacePage writes (room left
// for a usage key within etcd's 128 operations) and stops adding writes
// once they reach replacePageBytes (etcd takes 1.5 MiB per request).
const (
	replacePage      = 100
	replacePageBytes = 512 << 10
)

// replaceWrite is one write of a ReplaceInodes call: a put, or a delete
// when value is nil, with the usage it changes and the old slice records
// whose references it keeps.
type replaceWrite struct {
	key, value    []byte
	space, inodes int64
	kept          []meta.Slice
}

// planReplace reads what states' inodes hold and returns the writes that
// replace it, reference counts first, and the children of the entries
// that come or go.
func (e *Engine) planReplace(ctx context.Context, states []meta.InodeState) ([]replaceWrite, []meta.Ino, error) {
	wanted := make([]map[string][]byte, len(states))
	for i := range states {
		var err error
		if wanted[i], err = e.k.inodeRecords(&states[i]); err != nil {
			return nil, nil, err
		}
	}
	var plan []replaceWrite
	var moved []meta.Ino
	err := e.txn(ctx, func(t *txn) error {
		plan, moved = plan[:0], moved[:0]
		held, err := t.inodeKeys(states)
		if err != nil {
			return err
		}
		var added []meta.Slice
		var writes []replaceWrite
		for i := range states {
			w, add, err := t.k.replaceWrites(held[i], wanted[i])
			if err != nil {
				return fmt.Errorf("inode %d: %w", states[i].Ino, err)
			}
			writes = append(writes, w...)
			added = append(added, add...)
			old, err := t.k.entriesOf(held[i])
			if err != nil {
				return fmt.Errorf("inode %d: %w", states[i].Ino, err)
			}
			now, _ := t.k.entriesOf(pairsOf(wanted[i])) // encoded by inodeRecords
			moved = append(moved, meta.MovedChildren(old, now)...)
		}
		refs, err := t.addedRefs(added)
		if err != nil {
			return err
		}
		plan = append(append(plan, refs...), writes...)
		return nil
	})
	return plan, moved, err
}

// entriesOf is the directory entries among an inode's pairs, name to
// child.
func (k keys) entriesOf(pairs []KeyValue) (map[string]meta.Ino, error) {
	out := map[string]meta.Ino{}
	for _, kv := range pairs {
		if k.suffix(kv.Key, 8)[0] != subEntry {
			continue
		}
		_, child, err := decodeEntry(kv.Value)
		if err != nil {
			return nil, err
		}
		out[string(k.suffix(kv.Key, 9))] = child
	}
	return out, nil
}

// pairsOf is a map of keys and values as pairs.
func pairsOf(m map[string][]byte) []KeyValue {
	out := make([]KeyValue, 0, len(m))
	for k, v := range m {
		out = append(out, KeyValue{Key: []byte(k), Value: v})
	}
	return out
}

// inodeRecords is the keys and values that state's records make.
func (k keys) inodeRecords(s *meta.InodeState) (map[string][]byte, error) {
	out := map[string][]byte{}
	for i := range s.Records {
		r := &s.Records[i]
		if r.Ino != s.Ino {
			return nil, fmt.Errorf("a record of inode %d among inode %d's: %w", r.Ino, s.Ino, meta.ErrInvalid)
		}
		switch r.Kind {
		case meta.DumpInode:
			out[string(k.attr(s.Ino))] = encodeAttr(&r.Attr)
		case meta.DumpEntry:
			out[string(k.entry(s.Ino, r.Name))] = encodeEntry(r.Type, r.Child)
		case meta.DumpSymlink:
			out[string(k.symlink(s.Ino))] = []byte(r.Target)
		case meta.DumpXattr:
			out[string(k.xattr(s.Ino, r.Name))] = append([]byte{}, r.Value...)
		case meta.DumpChunk:
			out[string(k.chunk(s.Ino, r.Index))] = meta.EncodeSliceRecords(r.Slices)
		default:
			return nil, fmt.Errorf("a record of kind %d cannot replace an inode's: %w", r.Kind, meta.ErrInvalid)
		}
	}
	return out, nil
}

// inodeKeys reads every key of each state's inode but its locks (which
// belong to sessions), in one request for many inodes where the store
// can.
func (t *txn) inodeKeys(states []meta.InodeState) ([][]KeyValue, error) {
	ranges := make([]ScanRange, len(states))
	for i := range states {
		begin, end := t.k.inodeRange(states[i].Ino)
		ranges[i] = ScanRange{Begin: begin, End: end, Limit: replaceScanPage}
	}
	pages, err := scanMany(t.Tx, ranges)
	if err != nil {
		return nil, err
	}
	for i, kvs := range pages {
		if len(kvs) == replaceScanPage {
			rest, err := t.scanAll(after(kvs[len(kvs)-1].Key), ranges[i].End, replaceScanPage)
			if err != nil {
				return nil, err
			}
			pages[i] = append(kvs, rest...)
		}
		held := pages[i][:0]
		for _, kv := range pages[i] {
			if sub := t.k.suffix(kv.Key, 8)[0]; sub != subFlock && sub != subPlock {
				held = append(held, kv)
			}
		}
		pages[i] = held
	}
	return pages, nil
}

// replaceScanPage is how many keys of an inode the first read fetches; a
// larger inode (a directory) is read on in pages of its own.
const replaceScanPage = 256

// replaceWrites turns what an inode holds into what it must hold: a
// delete for each key it must no longer have, a put for each new or
// changed one, with the usage its attributes change and the old chunk
// lists' references kept. It returns the slice records of the chunk
// lists it writes, which gain references.
func (k keys) replaceWrites(held []KeyValue, wanted map[string][]byte) ([]replaceWrite, []meta.Slice, error) {
	var out []replaceWrite
	var added []meta.Slice
	had := map[string]bool{}
	for _, kv := range held {
		key := string(kv.Key)
		had[key] = true
		value, keep := wanted[key]
		if keep && bytes.Equal(value, kv.Value) {
			continue
		}
		w := replaceWrite{key: kv.Key, value: value}
		if err := k.account(&w, kv.Value, -1); err != nil {
			return nil, nil, err
		}
		if keep {
			if err := k.account(&w, value, 1); err != nil {
				return nil, nil, err
			}
			added = append(added, k.slicesOf(w.key, value)...)
		}
		out = append(out, w)
	}
	for key, value := range wanted {
		if had[key] {
			continue
		}
		w := replaceWrite{key: []byte(key), value: value}
		if err := k.account(&w, value, 1); err != nil {
			return nil, nil, err
		}
		added = append(added, k.slicesOf(w.key, value)...)
		out = append(out, w)
	}
	return out, added, nil
}

// account adds to w what value, held (sign -1) or written (sign 1) at
// w's key, counts: an inode's attributes count in Usage, and the slice
// records of a chunk list held are kept.
func (k keys) account(w *replaceWrite, value []byte, sign int64) error {
	switch k.suffix(w.key, 8)[0] {
	case subAttr:
		if !bytes.Equal(w.key, k.attr(meta.Ino(be.Uint64(k.suffix(w.key, 0))))) {
			return nil
		}
		a, err := decodeAttr(value)
		if err != nil {
			return err
		}
		w.space += sign * spaceOf(&a)
		w.inodes += sign
	case subChunk:
		if sign < 0 {
			list, err := meta.DecodeSliceRecords(value)
			if err != nil {
				return err
			}
			w.kept = append(w.kept, list...)
		}
	}
	return nil
}

// slicesOf is the slice records value holds when key is a chunk's.
func (k keys) slicesOf(key, value []byte) []meta.Slice {
	if k.suffix(key, 8)[0] != subChunk {
		return nil
	}
	list, _ := meta.DecodeSliceRecords(value) // encoded by inodeRecords
	return list
}

// addedRefs reads the reference counts of the slices of added, and
// whether they wait in the dead-slice queue, in one request, and returns
// the writes that add a reference per record and take the slices out of
// the queue.
func (t *txn) addedRefs(added []meta.Slice) ([]replaceWrite, error) {
	count := map[uint64]uint64{}
	var keys [][]byte
	for _, s := range added {
		if s.ID == 0 {
			continue
		}
		if count[s.ID] == 0 {
			keys = append(keys, t.k.ref(s.ID), t.k.dead(s.ID))
		}
		count[s.ID]++
	}
	if err := t.prefetch(keys...); err != nil {
		return nil, err
	}
	var out []replaceWrite
	for id, n := range count {
		v, err := t.get(t.k.ref(id))
		if err != nil {
			return nil, err
		}
		held, err := counterValue(v)
		if err != nil {
			return nil, fmt.Errorf("reference count of slice %d: %w", id, err)
		}
		out = append(out, replaceWrite{key: t.k.ref(id), value: u64(held + n)})
		if dead, err := t.get(t.k.dead(id)); err != nil {
			return nil, err
		} else if dead != nil {
			out = append(out, replaceWrite{key: t.k.dead(id)})
		}
	}
	return out, nil
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
