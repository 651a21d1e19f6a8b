package kv

import (
	"fmt"

	"cairn/meta"
)

// Slice reference counts. Every record of a chunk's slice list that names
// slice ID holds one reference, kept in key R<id>; records may share a slice
// (copy_file_range writes an existing slice into another file). When the
// last reference goes, the slice joins the dead-slice queue.

// changeRefs adds a reference for each record of add and drops one for
// each record of remove (hole records, ID 0, count for nothing).
func (t *txn) changeRefs(add, remove []meta.Slice) error {
	delta := map[uint64]int64{}
	size := map[uint64]uint32{}
	for _, s := range add {
		if s.ID != 0 {
			delta[s.ID]++
			size[s.ID] = s.Size
		}
	}
	for _, s := range remove {
		if s.ID != 0 {
			delta[s.ID]--
			size[s.ID] = s.Size
		}
	}
	var keys [][]byte
	for id, d := range delta {
		if d != 0 {
			keys = append(keys, t.k.ref(id))
		}
	}
	if err := t.prefetch(keys...); err != nil {
		return err
	}
	for id, d := range delta {
		if d == 0 {
			continue
		}
		v, err := t.get(t.k.ref(id))
		if err != nil {
			return err
		}
		n, err := counterValue(v)
		if err != nil {
			return fmt.Errorf("reference count of slice %d: %w", id, err)
		}
		if c := int64(n) + d; c > 0 {
			t.put(t.k.ref(id), u64(uint64(c)))
		} else {
			t.del(t.k.ref(id))
			t.put(t.k.dead(id), u32(size[id]))
		}
	}
	return nil
}
