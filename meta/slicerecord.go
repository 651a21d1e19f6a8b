package meta

import (
	"encoding/binary"
	"fmt"
)

// SliceRecordSize is the size of one Slice in a chunk's stored list.
const SliceRecordSize = 4 + 8 + 4 + 4 + 4

// AppendSliceRecord appends s as every engine family stores it in a
// chunk's list: pos (4), id (8), size, off, len (4 each), big-endian.
// The Redis scripts and the PostgreSQL and MySQL routines read and write
// the same records, and a compaction compares them byte for byte, so the
// layout is one for all.
func AppendSliceRecord(b []byte, s Slice) []byte {
	b = binary.BigEndian.AppendUint32(b, s.Pos)
	b = binary.BigEndian.AppendUint64(b, s.ID)
	b = binary.BigEndian.AppendUint32(b, s.Size)
	b = binary.BigEndian.AppendUint32(b, s.Off)
	return binary.BigEndian.AppendUint32(b, s.Len)
}

// EncodeSliceRecords encodes a chunk's list.
func EncodeSliceRecords(list []Slice) []byte {
	b := make([]byte, 0, len(list)*SliceRecordSize)
	for _, s := range list {
		b = AppendSliceRecord(b, s)
	}
	return b
}

// DecodeSliceRecord decodes exactly one record.
func DecodeSliceRecord(b []byte) (Slice, error) {
	if len(b) != SliceRecordSize {
		return Slice{}, fmt.Errorf("slice record of %d bytes, want %d: %w", len(b), SliceRecordSize, ErrIO)
	}
	return Slice{
		Pos:  binary.BigEndian.Uint32(b),
		ID:   binary.BigEndian.Uint64(b[4:]),
		Size: binary.BigEndian.Uint32(b[12:]),
		Off:  binary.BigEndian.Uint32(b[16:]),
		Len:  binary.BigEndian.Uint32(b[20:]),
	}, nil
}

// DecodeSliceRecords decodes a chunk's list; a damaged one (not a whole
// number of records) is ErrIO.
func DecodeSliceRecords(b []byte) ([]Slice, error) {
	if len(b)%SliceRecordSize != 0 {
		return nil, fmt.Errorf("slice list of %d bytes is not a whole number of records: %w", len(b), ErrIO)
	}
	list := make([]Slice, 0, len(b)/SliceRecordSize)
	for ; len(b) > 0; b = b[SliceRecordSize:] {
		s, _ := DecodeSliceRecord(b[:SliceRecordSize])
		list = append(list, s)
	}
	return list, nil
}
