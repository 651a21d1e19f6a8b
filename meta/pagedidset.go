package meta

// PagedIDSet is a set of numbers in pages of 65,536 bits, allocated as
// numbers fall in them: numbers handed out by a counter (inode numbers,
// slice ids: dense from 1) cost about a bit each, and unlike IDSet it
// needs no bound, so it suits input not checked yet (a dump being
// loaded). The zero value is not usable: make one with NewPagedIDSet.
type PagedIDSet struct {
	pages map[uint64]*[1024]uint64
}

// NewPagedIDSet returns an empty set.
func NewPagedIDSet() PagedIDSet { return PagedIDSet{pages: map[uint64]*[1024]uint64{}} }

// Add puts n in the set and says whether it was not there yet.
func (s PagedIDSet) Add(n uint64) (added bool) {
	page := s.pages[n>>16]
	if page == nil {
		page = new([1024]uint64)
		s.pages[n>>16] = page
	}
	word, bit := (n>>6)&1023, uint64(1)<<(n&63)
	if page[word]&bit != 0 {
		return false
	}
	page[word] |= bit
	return true
}

// Has says whether n is in the set.
func (s PagedIDSet) Has(n uint64) bool {
	page := s.pages[n>>16]
	return page != nil && page[(n>>6)&1023]&(uint64(1)<<(n&63)) != 0
}

// Missing returns a number of s that other lacks, if any.
func (s PagedIDSet) Missing(other PagedIDSet) (uint64, bool) {
	for key, page := range s.pages {
		theirs := other.pages[key]
		for w, bits := range page {
			if theirs != nil {
				bits &^= theirs[w]
			}
			for bit := 0; bits != 0; bit++ {
				if bits&1 != 0 {
					return key<<16 | uint64(w)<<6 | uint64(bit), true
				}
				bits >>= 1
			}
		}
	}
	return 0, false
}
