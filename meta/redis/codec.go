package redis

import (
	"encoding/binary"
	"fmt"
	"strings"

	"cairn/meta"
)

// Records as scripts/lib.lua packs them, big-endian:
//
//	attr  meta.AppendAttrRecord's, times in seconds and nanoseconds
//	slice meta.AppendSliceRecord's
//	entry name, 0, type u8, ino u64 (a directory's sorted-set member)

// encodeAttr stores times with meta.TimesInSeconds: the scripts read and
// write attributes, and Lua's numbers are doubles.
func encodeAttr(a *meta.Attr) []byte { return appendAttr(nil, a) }

// appendAttr appends the record encodeAttr returns to b.
func appendAttr(b []byte, a *meta.Attr) []byte {
	return meta.AppendAttrRecord(b, a, meta.TimesInSeconds)
}

func decodeAttr(raw string) (meta.Attr, error) {
	return meta.DecodeAttrRecord([]byte(raw), meta.TimesInSeconds)
}

// decodeEntry splits a directory member into its name, type and inode.
func decodeEntry(m string) (meta.Entry, error) {
	name, rest, ok := strings.Cut(m, "\x00")
	if !ok || len(rest) != 9 {
		return meta.Entry{}, fmt.Errorf("corrupt directory entry %q: %w", m, meta.ErrIO)
	}
	return meta.Entry{Name: name, Type: meta.FileType(rest[0]), Ino: meta.Ino(binary.BigEndian.Uint64([]byte(rest[1:])))}, nil
}
