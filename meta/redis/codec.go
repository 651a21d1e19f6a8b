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
//	slice pos u32, id u64, size, off, len u32
//	entry name, 0, type u8, ino u64 (a directory's sorted-set member)
const (
	attrLen  = 1 + 2 + 4*4 + 8 + 3*12 + 8
	sliceLen = 24
)

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

func encodeSlice(s meta.Slice) []byte {
	b := make([]byte, 0, sliceLen)
	b = binary.BigEndian.AppendUint32(b, s.Pos)
	b = binary.BigEndian.AppendUint64(b, s.ID)
	b = binary.BigEndian.AppendUint32(b, s.Size)
	b = binary.BigEndian.AppendUint32(b, s.Off)
	return binary.BigEndian.AppendUint32(b, s.Len)
}

func decodeSlice(raw string) (meta.Slice, error) {
	if len(raw) != sliceLen {
		return meta.Slice{}, fmt.Errorf("corrupt slice record: %d bytes: %w", len(raw), meta.ErrIO)
	}
	b, be := []byte(raw), binary.BigEndian
	return meta.Slice{Pos: be.Uint32(b), ID: be.Uint64(b[4:]), Size: be.Uint32(b[12:]), Off: be.Uint32(b[16:]), Len: be.Uint32(b[20:])}, nil
}

// decodeEntry splits a directory member into its name, type and inode.
func decodeEntry(m string) (meta.Entry, error) {
	name, rest, ok := strings.Cut(m, "\x00")
	if !ok || len(rest) != 9 {
		return meta.Entry{}, fmt.Errorf("corrupt directory entry %q: %w", m, meta.ErrIO)
	}
	return meta.Entry{Name: name, Type: meta.FileType(rest[0]), Ino: meta.Ino(binary.BigEndian.Uint64([]byte(rest[1:])))}, nil
}
