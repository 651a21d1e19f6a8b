package meta

import (
	"context"
	"math/rand/v2"
)

// Directory statistics: for every directory, the space and the inodes of
// the entries directly in it (a subdirectory counts one inode and no
// space; what is below it counts in its own statistics). A tree's totals
// are the sum over its directories, which is how summary and quotas read
// them without visiting files.
//
// How current they are: the statistics are not written in the
// transaction of each change, which would add a round trip per create,
// write and unlink on Redis, PostgreSQL and MySQL. Instead Client sums
// the changes it makes per directory and writes the sums in one call
// every DirStatsInterval (1 s) and at Close (client_dirstats.go). A
// directory's statistics are therefore at most one interval behind what
// the live clients did, and exact once they have flushed. A flush whose
// answer is lost is sent again with a FlushMark, which makes it count
// once. A client that dies loses what it had not written (its last
// interval's sums, or more while its server was away); fsck --repair
// recounts them.
//
// What counts where: a file's space is its length rounded up to 4 KiB
// (SpaceOf), counted in the directory of each of its names (a file with
// two hard links counts in both directories, as two inodes). A write,
// truncate or fallocate changes the statistics of the directory the
// writing client reached the file through (its last Lookup, create,
// link, rename or Readdir-plus here), since the engines do not store a
// file's parents: for a file with several links the other names'
// directories keep the old space until fsck --repair, and a file this
// client reached by inode number alone is not counted until then. Two
// clients writing the same file at once may both count the same growth;
// fsck --repair corrects it.
//
// A file moved to the trash leaves its directory's statistics for the
// trash directory's, so it leaves the directory's quota too; the
// volume's Usage keeps counting it until the trash is purged. A volume
// formatted before statistics existed, or loaded from a dump made
// before dumps carried them, starts with none: fsck --repair computes
// them. A dump carries them (VolumeDumper).

// DirStat is what the entries directly in one directory hold.
type DirStat struct {
	Space  int64 // bytes, each file's length rounded up to 4 KiB
	Inodes int64 // entries
}

// Add returns s plus d.
func (s DirStat) Add(d DirStat) DirStat {
	return DirStat{Space: s.Space + d.Space, Inodes: s.Inodes + d.Inodes}
}

// DirStatStore is an optional interface of an engine (find it with
// Capability) that stores directory statistics. Without it, Client keeps
// none, and statistics and quotas are refused with ErrNotSupported.
//
// All methods are safe for concurrent use. Each is one transaction,
// except on an engine that bounds a transaction's size (etcd): there
// AddDirStats and SetDirStats may write in several, and a call that
// failed may have written some of them. SetDirStats is safe to repeat;
// AddDirStats is when it carries a FlushMark.
type DirStatStore interface {
	// AddDirStats adds each delta to its directory's statistics (a
	// directory without any starts from zero), then forgets the
	// statistics of the directories in removed, in one transaction. With
	// a mark (see FlushMark) it changes nothing when the mark's record
	// already holds mark.Seq or more, and stores mark.Seq with the
	// changes otherwise (an engine writing in several transactions
	// stores a number per part that orders the same way); either way it
	// returns nil.
	AddDirStats(ctx context.Context, deltas map[Ino]DirStat, removed []Ino, mark FlushMark) error
	// DirStats returns the statistics of dirs; a directory without any
	// is missing from the map (it counts as zero).
	DirStats(ctx context.Context, dirs []Ino) (map[Ino]DirStat, error)
	// SetDirStats replaces the statistics of the directories in stats
	// (fsck --repair, quota check --repair) and forgets those of the
	// directories in removed, in one transaction.
	SetDirStats(ctx context.Context, stats map[Ino]DirStat, removed []Ino) error
	// AllDirStats lists every directory that has statistics (flush
	// marks' records are not directories and are left out).
	AllDirStats(ctx context.Context) (map[Ino]DirStat, error)
}

// FlushMark makes a sum written to the statistics (AddDirStats) or to
// the quotas' usage (AddQuotaUsage) count once, however many times it is
// sent: a call whose answer was lost (a connection broken during COMMIT,
// a reply that never came) may or may not have been applied, and sending
// it again unmarked could count it twice. The engine keeps, beside the
// statistics, one record per Key: the highest Seq applied. A call applies
// its changes and stores Seq in one transaction when the record holds
// less, and changes nothing otherwise, so that the same call sent again,
// or arriving late after it was sent again, is a no-op. An engine writing
// a call in several transactions (etcd) marks each part, so that a call
// sent again with the same changes skips the parts already written.
//
// The zero FlushMark marks nothing: the call is applied unconditionally.
type FlushMark struct {
	Key Ino    // the writer's record: a key of NewFlushMarkKey, never a directory
	Seq uint64 // greater than the Seq of every other batch written with Key
}

// flushMarkBit sets a flush mark's record apart from inode numbers,
// which never have the top bit.
const flushMarkBit = 1 << 63

// NewFlushMarkKey is a random key for a writer's flush marks; it and the
// next number (key+1) are both marks' keys.
func NewFlushMarkKey() Ino {
	return Ino(rand.Uint64()&^1 | flushMarkBit)
}

// IsFlushMark reports whether key is a flush mark's record, not a
// directory (engines leave them out of AllDirStats).
func IsFlushMark(key Ino) bool { return key&flushMarkBit != 0 }
