package kv

import (
	"encoding/binary"
	"fmt"

	"cairn/meta"
)

var be = binary.BigEndian

// encodeAttr stores times with meta.TimesInNanoseconds: no script reads
// attributes here, so a time stays one number (meta/redis splits it for
// Lua).
func encodeAttr(a *meta.Attr) []byte {
	return meta.AppendAttrRecord(nil, a, meta.TimesInNanoseconds)
}

func decodeAttr(b []byte) (meta.Attr, error) {
	return meta.DecodeAttrRecord(b, meta.TimesInNanoseconds)
}

// A directory entry's value: the child's type and inode.
func encodeEntry(typ meta.FileType, ino meta.Ino) []byte {
	return be.AppendUint64([]byte{byte(typ)}, uint64(ino))
}

func decodeEntry(b []byte) (meta.FileType, meta.Ino, error) {
	if len(b) != 9 {
		return 0, 0, fmt.Errorf("corrupt directory entry: %d bytes", len(b))
	}
	return meta.FileType(b[0]), meta.Ino(be.Uint64(b[1:])), nil
}

// counterValue decodes an 8-byte counter; a missing key is zero.
func counterValue(b []byte) (uint64, error) {
	if b == nil {
		return 0, nil
	}
	if len(b) != 8 {
		return 0, fmt.Errorf("corrupt counter: %d bytes", len(b))
	}
	return be.Uint64(b), nil
}

// usageDelta is a change to one usage shard.
type usageDelta struct{ space, inodes int64 }

func decodeUsage(b []byte) (usageDelta, error) {
	if b == nil {
		return usageDelta{}, nil
	}
	if len(b) != 16 {
		return usageDelta{}, fmt.Errorf("corrupt usage counter: %d bytes", len(b))
	}
	return usageDelta{int64(be.Uint64(b)), int64(be.Uint64(b[8:]))}, nil
}

func encodeUsage(u usageDelta) []byte {
	return be.AppendUint64(be.AppendUint64(nil, uint64(u.space)), uint64(u.inodes))
}
