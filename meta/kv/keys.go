package kv

import (
	"encoding/binary"

	"cairn/meta"
)

// The key layout. Every key starts with the volume's prefix, then a tag
// byte. Integers are big-endian so that keys sort by number, and an
// inode's keys share the prefix 'A'+ino so that a directory's entries and a
// file's chunks are contiguous ranges.
//
//	F                      volume settings (JSON)
//	N<name>                counters: next inode, next slice, next session
//	U<shard>               usage shard: space and inodes (2 × int64)
//	A<ino>I                attributes
//	A<ino>D<name>          directory entry: type, inode
//	A<ino>C<idx>           slice list of chunk idx
//	A<ino>X<name>          extended attribute value
//	A<ino>S                symlink target
//	A<ino>F                flock holders
//	A<ino>P                POSIX byte-range locks
//	S<sid>                 session info (JSON)
//	O<sid><ino>            orphan of a session (unlinked while open)
//	K<sid><ino><F|P>       the session holds flocks or POSIX locks on ino
//	R<slice id>            references to a slice from slice lists
//	Q<ino><time>           slice records cut off by a truncate, to release
//	Z<slice id>            dead slice: its size
//	W                      scratch key of the floor probes (floor.go) and etcd commits' marks (etcdsettle.go)
//	T<ino>                 directory statistics (dirstats.go)
//	V<ino>                 directory quota (quota.go)
const (
	tagFormat   = 'F'
	tagCounter  = 'N'
	tagUsage    = 'U'
	tagInode    = 'A'
	tagSession  = 'S'
	tagOrphan   = 'O'
	tagLockRef  = 'K'
	tagDead     = 'Z'
	tagRef      = 'R'
	tagRelease  = 'Q'
	subAttr     = 'I'
	subEntry    = 'D'
	subChunk    = 'C'
	subXattr    = 'X'
	subSymlink  = 'S'
	subFlock    = 'F'
	subPlock    = 'P'
	usageShards = 16
)

// keys builds the keys of one volume.
type keys struct{ prefix []byte }

func (k keys) key(tag byte, parts ...[]byte) []byte {
	n := len(k.prefix) + 1
	for _, p := range parts {
		n += len(p)
	}
	b := make([]byte, 0, n)
	b = append(b, k.prefix...)
	b = append(b, tag)
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func u64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }
func u32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }

func (k keys) format() []byte             { return k.key(tagFormat) }
func (k keys) counter(name string) []byte { return k.key(tagCounter, []byte(name)) }
func (k keys) usage(shard int) []byte     { return k.key(tagUsage, []byte{byte(shard)}) }
func (k keys) usageRange() ([]byte, []byte) {
	return k.key(tagUsage), k.key(tagUsage + 1)
}

// inode builds the key of one of ino's records in one allocation: a
// load builds one for each record.
func (k keys) inode(ino meta.Ino, sub byte, rest ...[]byte) []byte {
	n := len(k.prefix) + 1 + 8 + 1
	for _, p := range rest {
		n += len(p)
	}
	b := make([]byte, 0, n)
	b = append(b, k.prefix...)
	b = binary.BigEndian.AppendUint64(append(b, tagInode), uint64(ino))
	b = append(b, sub)
	for _, p := range rest {
		b = append(b, p...)
	}
	return b
}
func (k keys) attr(ino meta.Ino) []byte    { return k.inode(ino, subAttr) }
func (k keys) symlink(ino meta.Ino) []byte { return k.inode(ino, subSymlink) }
func (k keys) flock(ino meta.Ino) []byte   { return k.inode(ino, subFlock) }
func (k keys) plock(ino meta.Ino) []byte   { return k.inode(ino, subPlock) }
func (k keys) entry(dir meta.Ino, name string) []byte {
	return k.inode(dir, subEntry, []byte(name))
}
func (k keys) chunk(ino meta.Ino, idx uint32) []byte { return k.inode(ino, subChunk, u32(idx)) }
func (k keys) xattr(ino meta.Ino, name string) []byte {
	return k.inode(ino, subXattr, []byte(name))
}

// inodeRange covers every key of ino; subRange the keys of one kind.
func (k keys) inodeRange(ino meta.Ino) ([]byte, []byte) {
	return k.key(tagInode, u64(uint64(ino))), k.key(tagInode, u64(uint64(ino)+1))
}
func (k keys) subRange(ino meta.Ino, sub byte) ([]byte, []byte) {
	return k.inode(ino, sub), k.inode(ino, sub+1)
}

func (k keys) session(sid uint64) []byte { return k.key(tagSession, u64(sid)) }
func (k keys) sessionRange() ([]byte, []byte) {
	return k.key(tagSession), k.key(tagSession + 1)
}
func (k keys) orphan(sid uint64, ino meta.Ino) []byte {
	return k.key(tagOrphan, u64(sid), u64(uint64(ino)))
}
func (k keys) lockRef(sid uint64, ino meta.Ino, kind byte) []byte {
	return k.key(tagLockRef, u64(sid), u64(uint64(ino)), []byte{kind})
}

// perSession covers the keys of one session under tag (orphans, lock refs).
func (k keys) perSession(tag byte, sid uint64) ([]byte, []byte) {
	return k.key(tag, u64(sid)), k.key(tag, u64(sid+1))
}
func (k keys) dead(id uint64) []byte { return k.key(tagDead, u64(id)) }
func (k keys) ref(id uint64) []byte  { return k.key(tagRef, u64(id)) }
func (k keys) release(ino meta.Ino, ts int64) []byte {
	return k.key(tagRelease, u64(uint64(ino)), u64(uint64(ts)))
}
func (k keys) releaseRange() ([]byte, []byte) {
	return k.key(tagRelease), k.key(tagRelease + 1)
}
func (k keys) deadRange() ([]byte, []byte) {
	return k.key(tagDead), k.key(tagDead + 1)
}

// suffix returns key without the first n bytes after the prefix and tag.
func (k keys) suffix(key []byte, n int) []byte { return key[len(k.prefix)+1+n:] }

// after returns the smallest key greater than key.
func after(key []byte) []byte { return append(append([]byte{}, key...), 0) }

// marker is the value of keys whose presence is what matters; not empty,
// because some stores do not tell an empty value from a missing one.
var marker = []byte{1}
