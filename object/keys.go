package object

import (
	"fmt"
	"strings"
)

// DefaultListLimit is the page size of List when the caller passes limit <= 0.
const DefaultListLimit = 1000

func listLimit(limit int) int {
	if limit <= 0 {
		return DefaultListLimit
	}
	return limit
}

// checkKey refuses keys that could not be stored under the same name in every
// store: empty ones, absolute ones, and ones with empty, "." or ".."
// segments, which a directory store would resolve to another path.
func checkKey(key string) error {
	if key == "" || strings.HasPrefix(key, "/") {
		return fmt.Errorf("invalid object key %q", key)
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." || strings.HasPrefix(seg, TempPrefix) {
			return fmt.Errorf("invalid object key %q", key)
		}
	}
	return nil
}

func notExist(key string) error {
	return fmt.Errorf("%s: %w", key, ErrNotExist)
}

// cut returns limit bytes of data from off (limit < 0: to the end), as a copy
// the caller may keep. An offset at or past the end gives no bytes.
func cut(data []byte, off, limit int64) []byte {
	if off < 0 {
		off = 0
	}
	if off >= int64(len(data)) {
		return []byte{}
	}
	end := int64(len(data))
	if limit >= 0 && off+limit < end {
		end = off + limit
	}
	return append([]byte(nil), data[off:end]...)
}
