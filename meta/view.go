package meta

import "sort"

// View resolves a chunk's slice list, where later records cover earlier
// ones, into the records that are visible: non-overlapping, sorted by Pos,
// with gaps left out (they read as zeros, as do records with ID 0, which
// View keeps so that callers see where holes were punched).
func View(list []Slice) []Slice {
	var out []Slice
	for _, s := range list {
		if s.Len == 0 {
			continue
		}
		out = cover(out, s)
	}
	return out
}

// cover lays s over the sorted, non-overlapping records in vis.
func cover(vis []Slice, s Slice) []Slice {
	start, end := s.Pos, s.Pos+s.Len
	i := sort.Search(len(vis), func(i int) bool { return vis[i].Pos+vis[i].Len > start })
	var tail []Slice
	j := i
	for ; j < len(vis) && vis[j].Pos < end; j++ {
		v := vis[j]
		if v.Pos < start {
			left := v
			left.Len = start - v.Pos
			tail = append(tail, left)
		}
		if v.Pos+v.Len > end {
			right := v
			cut := end - v.Pos
			right.Pos = end
			right.Off += cut
			right.Len -= cut
			tail = append(tail, right)
		}
	}
	// Rebuild: vis[:i], left part(s) before s, s, right part(s), vis[j:].
	res := make([]Slice, 0, len(vis)+2)
	res = append(res, vis[:i]...)
	for _, t := range tail {
		if t.Pos < start {
			res = append(res, t)
		}
	}
	res = append(res, s)
	for _, t := range tail {
		if t.Pos >= end {
			res = append(res, t)
		}
	}
	return append(res, vis[j:]...)
}
