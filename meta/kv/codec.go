package kv

import (
	"encoding/binary"
	"fmt"

	"cairn/meta"
)

var be = binary.BigEndian

// An inode's attributes: type u8, mode u16, uid, gid, rdev, nlink u32,
// length u64, atime, mtime, ctime (nanoseconds, i64), parent u64,
// big-endian. meta/redis stores the same fields but splits each time in
// seconds and nanoseconds for its Lua scripts, whose numbers are doubles;
// nothing here runs in Lua, so a time stays one number.
const attrSize = 1 + 2 + 4*4 + 8*5

func encodeAttr(a *meta.Attr) []byte {
	b := make([]byte, 0, attrSize)
	b = append(b, byte(a.Type))
	b = be.AppendUint16(b, a.Mode)
	b = be.AppendUint32(b, a.Uid)
	b = be.AppendUint32(b, a.Gid)
	b = be.AppendUint32(b, a.Rdev)
	b = be.AppendUint32(b, a.Nlink)
	b = be.AppendUint64(b, a.Length)
	b = be.AppendUint64(b, uint64(a.Atime))
	b = be.AppendUint64(b, uint64(a.Mtime))
	b = be.AppendUint64(b, uint64(a.Ctime))
	return be.AppendUint64(b, uint64(a.Parent))
}

func decodeAttr(b []byte) (meta.Attr, error) {
	if len(b) != attrSize {
		return meta.Attr{}, fmt.Errorf("corrupt attributes: %d bytes, want %d", len(b), attrSize)
	}
	return meta.Attr{
		Type:   meta.FileType(b[0]),
		Mode:   be.Uint16(b[1:]),
		Uid:    be.Uint32(b[3:]),
		Gid:    be.Uint32(b[7:]),
		Rdev:   be.Uint32(b[11:]),
		Nlink:  be.Uint32(b[15:]),
		Length: be.Uint64(b[19:]),
		Atime:  int64(be.Uint64(b[27:])),
		Mtime:  int64(be.Uint64(b[35:])),
		Ctime:  int64(be.Uint64(b[43:])),
		Parent: meta.Ino(be.Uint64(b[51:])),
	}, nil
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
