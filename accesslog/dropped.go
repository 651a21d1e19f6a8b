package accesslog

import (
	"strconv"
	"strings"
)

// droppedCount reads the note a Reader writes where it dropped lines.
func droppedCount(line string) (uint64, bool) {
	rest, ok := strings.CutPrefix(line, "# ")
	if !ok {
		return 0, false
	}
	num, _, ok := strings.Cut(rest, " lines dropped")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(num, 10, 64)
	return n, err == nil
}

// appendDropped writes the note of dropped lines, if any, where they
// would have been. The caller holds r.mu.
func (r *Reader) appendDropped() {
	if r.dropped == 0 {
		return
	}
	r.buf = append(r.buf, "# "...)
	r.buf = strconv.AppendUint(r.buf, r.dropped, 10)
	r.buf = append(r.buf, " lines dropped: this reader fell behind\n"...)
	r.dropped = 0
}
