package meta

import (
	"context"
	"errors"
)

// Dumper is implemented by engines that can copy a whole volume out of
// their database and into an empty one ('cairn dump', 'cairn load'). The
// records are the engine-neutral form of a volume, so a dump of one engine
// loads into any other.
//
// Dump reads the volume at one moment — the database's own snapshot (a
// read-only repeatable-read transaction, a read revision, a read
// timestamp) or, where the database has none, a way documented by the
// engine — and passes it to w: the header first, then every record once,
// in any order. Inodes that only a session's orphan list still holds
// (unlinked while open), sessions and locks belong to live clients and are
// left out. A volume that is not formatted is ErrNotFormatted. Dump may run
// while clients use the volume; it changes nothing.
//
// Restore writes the records of r into a database that holds nothing at
// all: one that holds a volume, or anything else where the volume would
// go, is refused with ErrNotEmpty before anything is written. The volume's
// settings are written last, so that a load that fails half-way (a
// truncated or corrupt input, r's error) never leaves a volume that mounts;
// the engine then removes what it wrote, as far as the database allows.
// Restore recomputes what follows from the records (slice reference
// counts, usage) instead of trusting the input. It must not run while
// anything else writes to the database.
type Dumper interface {
	Dump(ctx context.Context, w DumpWriter) error
	Restore(ctx context.Context, r DumpReader) error
}

// DumpWriter receives a volume from Dumper.Dump. An error it returns stops
// the dump and is returned by Dump.
type DumpWriter interface {
	Header(h DumpHeader) error
	// Record is called once per record; rec is only valid during the call.
	Record(rec *DumpRecord) error
}

// DumpReader hands a volume to Dumper.Restore. Next returns the records
// after the header, one per call (valid until the next call), and io.EOF
// after the last; any other error means the input is damaged and the load
// must fail.
type DumpReader interface {
	Header() DumpHeader
	Next() (*DumpRecord, error)
}

// DumpHeader is what a dump holds about the volume as a whole.
type DumpHeader struct {
	Format Format
	// NextInode and NextSlice are the first inode number and slice id not
	// yet handed out by NextInodes and NextSlices.
	NextInode uint64
	NextSlice uint64
	// Usage is the volume's usage as the source recorded it (orphans
	// included); Restore recomputes it from the records.
	Usage Usage
}

// DumpKind says what a DumpRecord describes.
type DumpKind uint8

const (
	// DumpInode: Ino and Attr.
	DumpInode DumpKind = iota + 1
	// DumpEntry: directory Ino holds Name, naming inode Child of type Type.
	DumpEntry
	// DumpSymlink: symlink Ino points to Target.
	DumpSymlink
	// DumpXattr: inode Ino has extended attribute Name = Value.
	DumpXattr
	// DumpChunk: chunk Index of inode Ino has the slice list Slices,
	// oldest first.
	DumpChunk
	// DumpDeadSlice: slice Slice.ID (Slice.Size bytes) is referenced by
	// nothing and waits for its blocks to be deleted.
	DumpDeadSlice
	// DumpQuota: directory Ino has the quota Quota. Only VolumeDumper
	// writes and reads it; an engine's own Dump and Restore never see it.
	DumpQuota
	// DumpDirStat: directory Ino has the statistics DirStat. Only
	// VolumeDumper writes and reads it, as DumpQuota.
	DumpDirStat
)

// DumpRecord is one piece of a volume; Kind says which fields are set.
type DumpRecord struct {
	Kind    DumpKind
	Ino     Ino
	Attr    Attr
	Name    string
	Child   Ino
	Type    FileType
	Target  string
	Value   []byte
	Index   uint32
	Slices  []Slice
	Slice   DeadSlice
	Quota   Quota
	DirStat DirStat
}

// ErrDatabaseNotEmpty is what Dumper.Restore returns for a database that
// already holds a volume or other data.
var ErrDatabaseNotEmpty = errors.New("the database is not empty (load needs an empty database: a new one, or one emptied by hand)")
