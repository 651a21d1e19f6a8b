package redis

import (
	"encoding/binary"
	"fmt"
	"strings"

	"cairn/meta"
)

// Records as scripts/lib.lua packs them, big-endian:
//
//	attr  type u8, mode u16, uid, gid, rdev, nlink u32, length u64,
//	      atime, mtime, ctime (seconds i64, nanoseconds u32), parent u64
//	slice meta.AppendSliceRecord's record
//	entry name, 0, type u8, ino u64 (a directory's sorted-set member)
//
// The attribute record differs from meta/kv's in its times only, and must:
// the scripts read and write it, and Lua's numbers are doubles, exact
// below 2^53, while a time in nanoseconds since the epoch passes 2^60. KV
// stores each time as one int64, which no script has to read; SQL keeps
// attributes in columns. Slice records are one layout for all families
// (meta.AppendSliceRecord).
const attrLen = 1 + 2 + 4*4 + 8 + 3*12 + 8

// splitTime splits nanoseconds since the epoch into seconds and
// nanoseconds, which Lua's doubles hold exactly.
func splitTime(ns int64) (int64, int64) {
	s, n := ns/1e9, ns%1e9
	if n < 0 {
		s, n = s-1, n+1e9
	}
	return s, n
}

func encodeAttr(a *meta.Attr) []byte {
	b := make([]byte, 0, attrLen)
	b = append(b, byte(a.Type))
	b = binary.BigEndian.AppendUint16(b, a.Mode)
	b = binary.BigEndian.AppendUint32(b, a.Uid)
	b = binary.BigEndian.AppendUint32(b, a.Gid)
	b = binary.BigEndian.AppendUint32(b, a.Rdev)
	b = binary.BigEndian.AppendUint32(b, a.Nlink)
	b = binary.BigEndian.AppendUint64(b, a.Length)
	for _, t := range []int64{a.Atime, a.Mtime, a.Ctime} {
		s, ns := splitTime(t)
		b = binary.BigEndian.AppendUint64(b, uint64(s))
		b = binary.BigEndian.AppendUint32(b, uint32(ns))
	}
	return binary.BigEndian.AppendUint64(b, uint64(a.Parent))
}

func decodeAttr(raw string) (meta.Attr, error) {
	b := []byte(raw)
	if len(b) != attrLen {
		return meta.Attr{}, fmt.Errorf("corrupt attributes: %d bytes, want %d: %w", len(b), attrLen, meta.ErrIO)
	}
	be := binary.BigEndian
	a := meta.Attr{
		Type:   meta.FileType(b[0]),
		Mode:   be.Uint16(b[1:]),
		Uid:    be.Uint32(b[3:]),
		Gid:    be.Uint32(b[7:]),
		Rdev:   be.Uint32(b[11:]),
		Nlink:  be.Uint32(b[15:]),
		Length: be.Uint64(b[19:]),
	}
	times := b[27:]
	for i, t := range []*int64{&a.Atime, &a.Mtime, &a.Ctime} {
		*t = int64(be.Uint64(times[i*12:]))*1e9 + int64(be.Uint32(times[i*12+8:]))
	}
	a.Parent = meta.Ino(be.Uint64(b[63:]))
	return a, nil
}

// decodeEntry splits a directory member into its name, type and inode.
func decodeEntry(m string) (meta.Entry, error) {
	name, rest, ok := strings.Cut(m, "\x00")
	if !ok || len(rest) != 9 {
		return meta.Entry{}, fmt.Errorf("corrupt directory entry %q: %w", m, meta.ErrIO)
	}
	return meta.Entry{Name: name, Type: meta.FileType(rest[0]), Ino: meta.Ino(binary.BigEndian.Uint64([]byte(rest[1:])))}, nil
}
