// Package redis is cairn's metadata engine on Redis and any server that
// speaks its protocol (Valkey, KeyDB). Every operation is one server-side
// Lua script, so it is atomic and costs one round trip; there are no
// WATCH/MULTI retry loops.
//
// Key layout, all under the volume's prefix P (default "cairn"):
//
//	P:setting        the volume's Format, JSON
//	P:usage          hash: space, inodes
//	P:quota          hash: space, inodes (0: unlimited)
//	P:nextino        counter of inode numbers (NextInodes)
//	P:nextslice      counter of slice ids (NextSlices)
//	P:nextsession    counter of session ids
//	P:i<ino>         attributes, packed (see codec.go)
//	P:d<ino>         directory: sorted set, score 0, member name\0type ino
//	P:s<ino>         symlink target
//	P:x<ino>         xattrs: hash name -> value
//	P:c<ino>:<idx>   chunk: list of packed slice records, oldest first
//	P:cl<ino>        set of the chunk indexes that have a list
//	P:dead           dead slices: sorted set, score id, member "id:size"
//	P:refs           hash: slice id -> records naming it
//	P:sessions       sorted set: session id -> last heartbeat (Unix s)
//	P:sessinfo       hash: session id -> SessionInfo, JSON
//	P:o<sid>         orphans of a session: set of inos
//	P:l<sid>         lock keys a session holds: set of "f<ino>"/"p<ino>"
//	P:f<ino>         flock holders: hash "sid:owner" -> R|W
//	P:p<ino>         fcntl locks: hash "sid:owner" -> packed ranges
//	P:migration      a migration's record (changelog.go)
//	P:changes        its change log: sorted set, score number, member "number:change"
//	P:changeseq      the change log's sequence
//	P:dirspace       directory statistics: hash dir ino -> bytes (dirstats.go)
//	P:dirinodes      directory statistics: hash dir ino -> entries, and
//	                 flush mark key (top bit set) -> last seq applied
//	P:quota:<field>  directory quotas: hash dir ino -> value, one hash per
//	                 field max_space, max_inodes, space, inodes (quota.go)
//
// Directories are sorted sets so that Readdir pages in byte order with
// ZRANGEBYLEX and bounded memory, however large the directory.
//
// Lua numbers are doubles: inode numbers, lengths, offsets and slice ids
// must stay below 2^53, and lock offsets above that are clamped to "EOF".
//
// This package knows nothing of object storage or FUSE.
package redis
