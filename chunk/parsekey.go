package chunk

import (
	"strconv"
	"strings"
)

// BlockKey is what the key of one block object names.
type BlockKey struct {
	Slice uint64 // slice id
	Index int    // block index within the slice
	Len   int    // the block's length before compression
}

// ParseKey reads the slice id, block index and block length back from a
// key written by the block store; ok is false for any other key, which
// 'cairn gc' leaves alone.
func ParseKey(key string) (BlockKey, bool) {
	rest, found := strings.CutPrefix(key, KeyPrefix)
	if !found {
		return BlockKey{}, false
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 3 {
		return BlockKey{}, false
	}
	fields := strings.Split(parts[2], "_")
	if len(fields) != 3 {
		return BlockKey{}, false
	}
	id, err1 := strconv.ParseUint(fields[0], 10, 64)
	index, err2 := strconv.Atoi(fields[1])
	length, err3 := strconv.Atoi(fields[2])
	if err1 != nil || err2 != nil || err3 != nil || index < 0 || length < 0 {
		return BlockKey{}, false
	}
	b := BlockKey{Slice: id, Index: index, Len: length}
	if key != blockKey(b.Slice, b.Index, b.Len) {
		return BlockKey{}, false // not in the store's own spelling
	}
	return b, true
}
