package sql

import (
	"sort"
	"strings"

	"cairn/meta"
)

// addRef records one more reference to slice s's data.
func (c *conn) addRef(s meta.Slice) error {
	if s.ID == 0 {
		return nil
	}
	q := "INSERT INTO cairn_sliceref (id, size, refs) VALUES (?, ?, 1)"
	if c.e.d.mysqlUpsert {
		q += " ON DUPLICATE KEY UPDATE refs = refs + 1"
	} else {
		q += " ON CONFLICT (id) DO UPDATE SET refs = cairn_sliceref.refs + 1"
	}
	_, err := c.exec(q, int64(s.ID), int64(s.Size))
	return err
}

// sliceRecords reads the slice lists of the cairn_chunk rows query selects
// (one column, slices) and returns them end to end.
func (c *conn) sliceRecords(query string, args ...any) ([]meta.Slice, error) {
	rows, err := c.query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var all []meta.Slice
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return nil, err
		}
		list, err := meta.DecodeSliceRecords(b)
		if err != nil {
			return nil, err
		}
		all = append(all, list...)
	}
	return all, rows.Err()
}

// sliceCounts counts the records of each slice in list (holes aside) and
// returns the slice ids in ascending order, the lock order of their rows.
func sliceCounts(list []meta.Slice) (ids []uint64, count map[uint64]int64, size map[uint64]uint32) {
	count = map[uint64]int64{}
	size = map[uint64]uint32{}
	for _, s := range list {
		if s.ID != 0 {
			count[s.ID]++
			size[s.ID] = s.Size
		}
	}
	ids = make([]uint64, 0, len(count))
	for id := range count {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids, count, size
}

// dropRefs takes away references to the slices in list (holes aside);
// those left with none go to the dead-slice queue.
func (c *conn) dropRefs(list []meta.Slice) error {
	ids, count, size := sliceCounts(list)
	for len(ids) > 0 {
		n := min(len(ids), 500)
		if err := c.dropRefBatch(ids[:n], count, size); err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}

func (c *conn) dropRefBatch(ids []uint64, count map[uint64]int64, size map[uint64]uint32) error {
	refs := map[uint64]int64{}
	rows, err := c.query("SELECT id, refs FROM cairn_sliceref WHERE id IN ("+marks(len(ids))+")"+c.e.d.forUpdate, idArgs(ids)...)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id, n int64
		if err := rows.Scan(&id, &n); err != nil {
			rows.Close()
			return err
		}
		refs[uint64(id)] = n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	var dead, live []uint64
	left := map[uint64]int64{}
	for _, id := range ids {
		if left[id] = refs[id] - count[id]; left[id] > 0 {
			live = append(live, id)
		} else {
			dead = append(dead, id)
		}
	}
	if err := c.upsertRefs(live, left, size, false); err != nil {
		return err
	}
	if len(dead) == 0 {
		return nil
	}
	if _, err := c.exec("DELETE FROM cairn_sliceref WHERE id IN ("+marks(len(dead))+")", idArgs(dead)...); err != nil {
		return err
	}
	values := strings.TrimSuffix(strings.Repeat("(?, ?), ", len(dead)), ", ")
	args := make([]any, 0, 2*len(dead))
	for _, id := range dead {
		args = append(args, int64(id), int64(size[id]))
	}
	_, err = c.exec("INSERT INTO cairn_dead (id, size) VALUES "+values, args...)
	return err
}

func marks(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }

func idArgs(ids []uint64) []any {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = int64(id)
	}
	return args
}
