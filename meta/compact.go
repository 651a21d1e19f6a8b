package meta

import "fmt"

// CompactList returns a chunk's list after Compact replaced its first
// records old by s, the rule every engine applies (the Redis family in
// scripts/compact.lua, held to this function by a test through the real
// server). Compaction reads the list, writes the merged slice, then
// commits: the list may have changed in between, and only when it still
// starts with old may the records be replaced, or data written meanwhile
// would be covered by stale bytes. ErrConflict when it does not (the
// caller reads the list again); ErrInvalid when old is empty, as there is
// nothing to replace. list is not modified.
func CompactList(list, old []Slice, s Slice) ([]Slice, error) {
	if len(old) == 0 {
		return nil, fmt.Errorf("compaction of no records: %w", ErrInvalid)
	}
	if len(list) < len(old) {
		return nil, fmt.Errorf("chunk has %d records, compaction read %d: %w", len(list), len(old), ErrConflict)
	}
	for i := range old {
		if list[i] != old[i] {
			return nil, fmt.Errorf("chunk record %d changed since compaction read it: %w", i, ErrConflict)
		}
	}
	out := make([]Slice, 0, len(list)-len(old)+1)
	out = append(out, s)
	return append(out, list[len(old):]...), nil
}
