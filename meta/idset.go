package meta

// IDSet is a set of slice ids or inode numbers below a bound, one bit
// per id: both come from counters (NextSlices, NextInodes), so the set of
// a volume costs the counter's value in bits (12.5 MB for 100 million
// slices) however many objects or records refer to them. Ids at or past the bound are never
// members. It is not safe for concurrent writes.
type IDSet struct {
	bits  []uint64
	bound uint64
}

// NewIDSet makes an empty set for ids below bound.
func NewIDSet(bound uint64) IDSet {
	return IDSet{bits: make([]uint64, (bound+63)/64), bound: bound}
}

// Add puts id in the set; an id at or past the bound is ignored.
func (s IDSet) Add(id uint64) {
	if id < s.bound {
		s.bits[id/64] |= 1 << (id % 64)
	}
}

// Has reports whether id is in the set.
func (s IDSet) Has(id uint64) bool {
	return id < s.bound && s.bits[id/64]&(1<<(id%64)) != 0
}
