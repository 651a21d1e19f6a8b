package meta

import (
	"encoding/binary"
	"fmt"
)

// TimeLayout is how an attribute record stores its three times.
type TimeLayout int

const (
	// TimesInNanoseconds stores each time as nanoseconds since the
	// epoch, one int64 (meta/kv).
	TimesInNanoseconds TimeLayout = iota
	// TimesInSeconds stores each time as seconds (int64) and nanoseconds
	// (uint32), for records that Lua scripts read and write (meta/redis):
	// Lua's numbers are doubles, exact below 2^53, and a time in
	// nanoseconds since the epoch passes 2^60.
	TimesInSeconds
)

// AttrRecordSize is the size of an attribute record in layout.
func AttrRecordSize(layout TimeLayout) int {
	if layout == TimesInSeconds {
		return attrHeadSize + 3*12 + 8
	}
	return attrHeadSize + 3*8 + 8
}

// attrHeadSize is what comes before the times: type, mode, uid, gid,
// rdev, nlink, length.
const attrHeadSize = 1 + 2 + 4*4 + 8

// AppendAttrRecord appends a as the key-value families store an inode's
// attributes: type u8, mode u16, uid, gid, rdev, nlink u32, length u64,
// atime, mtime, ctime in layout, parent u64, all big-endian. (SQL keeps
// attributes in columns.)
func AppendAttrRecord(b []byte, a *Attr, layout TimeLayout) []byte {
	b = append(b, byte(a.Type))
	b = binary.BigEndian.AppendUint16(b, a.Mode)
	b = binary.BigEndian.AppendUint32(b, a.Uid)
	b = binary.BigEndian.AppendUint32(b, a.Gid)
	b = binary.BigEndian.AppendUint32(b, a.Rdev)
	b = binary.BigEndian.AppendUint32(b, a.Nlink)
	b = binary.BigEndian.AppendUint64(b, a.Length)
	for _, t := range []int64{a.Atime, a.Mtime, a.Ctime} {
		if layout == TimesInSeconds {
			s, ns := SplitTime(t)
			b = binary.BigEndian.AppendUint64(b, uint64(s))
			b = binary.BigEndian.AppendUint32(b, uint32(ns))
		} else {
			b = binary.BigEndian.AppendUint64(b, uint64(t))
		}
	}
	return binary.BigEndian.AppendUint64(b, uint64(a.Parent))
}

// DecodeAttrRecord decodes what AppendAttrRecord wrote in layout; a record
// of another size is ErrIO.
func DecodeAttrRecord(b []byte, layout TimeLayout) (Attr, error) {
	if len(b) != AttrRecordSize(layout) {
		return Attr{}, fmt.Errorf("attribute record of %d bytes, want %d: %w", len(b), AttrRecordSize(layout), ErrIO)
	}
	be := binary.BigEndian
	a := Attr{
		Type:   FileType(b[0]),
		Mode:   be.Uint16(b[1:]),
		Uid:    be.Uint32(b[3:]),
		Gid:    be.Uint32(b[7:]),
		Rdev:   be.Uint32(b[11:]),
		Nlink:  be.Uint32(b[15:]),
		Length: be.Uint64(b[19:]),
	}
	times := b[attrHeadSize:]
	for _, t := range []*int64{&a.Atime, &a.Mtime, &a.Ctime} {
		if layout == TimesInSeconds {
			*t = int64(be.Uint64(times))*1e9 + int64(be.Uint32(times[8:]))
			times = times[12:]
		} else {
			*t = int64(be.Uint64(times))
			times = times[8:]
		}
	}
	a.Parent = Ino(be.Uint64(times))
	return a, nil
}

// SplitTime splits nanoseconds since the epoch into seconds and
// nanoseconds (0 to 999999999, also before the epoch).
func SplitTime(ns int64) (seconds, nanoseconds int64) {
	s, n := ns/1e9, ns%1e9
	if n < 0 {
		s, n = s-1, n+1e9
	}
	return s, n
}
