// Package dump is the file format of 'cairn dump' and 'cairn load': a
// volume's metadata as a stream of records, the same whichever engine
// wrote it, so that a dump of one engine loads into any other. It reads
// and writes meta.DumpHeader and meta.DumpRecord and knows nothing of the
// engines, object storage or FUSE.
//
// # The JSON form (the default)
//
// One JSON object per line, version 1:
//
//	{"cairn_dump":1,"format":{...},"next_inode":N,"next_slice":N,"usage":{"space":B,"inodes":N}}
//	{"kind":"inode","ino":2,"type":"file","mode":"0644","uid":0,"gid":0,"rdev":0,"nlink":1,"length":5,"atime":T,"mtime":T,"ctime":T,"parent":0}
//	{"kind":"entry","parent":1,"name":"a","ino":2,"type":"file"}
//	{"kind":"symlink","ino":3,"target":"a"}
//	{"kind":"xattr","ino":2,"name":"user.k","value":"BASE64"}
//	{"kind":"chunk","ino":2,"index":0,"slices":[[POS,ID,SIZE,OFF,LEN],...]}
//	{"kind":"dead_slice","id":7,"size":4096}
//	{"kind":"dir_stat","ino":1,"space":B,"inodes":N}
//	{"kind":"quota","ino":4,"max_space":B,"max_inodes":N,"space":B,"inodes":N}
//	{"kind":"end","records":N}
//
// The first line is the header: the format version (cairn_dump), the
// volume's settings (which never hold a credential: object-store keys are
// not stored in a volume), the first inode number and slice id not yet
// handed out, and the usage the source recorded. The last line counts the
// records between them; a file without it is truncated. Records in between
// come in any order. Types are file, dir, symlink, fifo, blockdev, chardev
// and socket; mode is octal, with the setuid, setgid and sticky bits;
// times are nanoseconds since the Unix epoch; an inode's parent is set for
// directories only. A chunk's slices are its slice list, oldest first: POS
// is the offset in the 64 MiB chunk, ID the slice (0: a hole), SIZE the
// slice's whole length, OFF and LEN the part of it used. A name or target
// that is not valid UTF-8 is written as "name64" or "target64", base64.
// dead_slice records name slices no file uses whose blocks are still to be
// deleted from the object store.
//
// dir_stat and quota records carry a directory's statistics (the space,
// each file's length rounded up to 4 KiB, and the inodes of the entries
// directly in it) and its quota (limits, 0 for none, and the usage of
// the tree under it); see meta.VolumeDumper. Their numbers are signed: a
// statistic that drifted below zero is carried as it is, for fsck
// --repair to correct. They are as current as the database was at the
// dump (statistics at most one flush behind the live clients), and a
// dump without them loads, with no quotas and statistics to recount.
//
// Left out: sessions, locks and inodes only a session's orphan list holds
// (unlinked while open), which belong to live clients. Recomputed by a
// load rather than read: slice reference counts and usage, which is why
// usage may differ between a dump and the dump of its load.
//
// # The binary form (--binary)
//
// The 8 bytes "CAIRNBIN", the version as a uvarint, then frames: a kind
// byte, the payload's length (uvarint), the payload, and the CRC-32C
// (Castagnoli) of kind and payload, little-endian. The first frame ('H')
// holds the JSON header above, the last ('E') the record count (uvarint).
// Record frames use meta.DumpKind's values; their payloads are uvarints
// (varints for times, limits, space and inode counts of quotas and
// statistics) in the order of the JSON form, names and values
// prefixed by their length, a target taking the rest of the payload.
//
// # Compression
//
// A file name ending in .gz is gzip, .zst is zstd; a reader recognises
// both by their first bytes, so a compressed dump also loads from a pipe.
//
// # Checks on reading
//
// A reader refuses, in one line naming the record: an unknown or newer
// version, a file that is not a dump, a truncated file, a corrupt record,
// two records for one inode, an entry, symlink, xattr or chunk naming an
// inode the dump does not hold, a quota or dir_stat record naming an
// inode that is not a directory of the dump (or naming one twice), a
// negative quota limit, a dump without a root directory, and
// counters below the inode numbers and slice ids in use.
package dump

// Version is the version of the format this package writes; it reads
// this one and none newer.
const Version = 1
