package meta

import (
	"context"
	"time"
)

// Engine is the metadata database of one volume. Every method is one atomic
// transaction: it either happens whole or not at all, also when many
// clients on many machines call it at once. Engines retry their own
// conflicts (re-running the whole read-modify-write, never replaying writes
// computed from stale reads) and return ErrConflict only when the retry
// budget is spent.
//
// Errors are the sentinels of this package (errors.Is), possibly wrapped with
// context. Mutating methods take the caller's Cred and check permissions
// (write and search on the parent, sticky bit, ownership) inside the same
// transaction; read methods (Lookup, GetAttr, Readdir, Read, xattr reads) do
// no permission checks: the caller (Client, or the kernel with
// default_permissions) does them with Access.
//
// Every mutating method updates ctime/mtime exactly as Linux does and keeps
// nlink, the volume's Usage, and directory link counts exact.
//
// Callers reach an engine through Checked (engines.Open returns every
// engine so, and NewClient puts any engine behind it), which refuses bad arguments — names, xattr names, sizes
// and flags, rename flags, Mknod's type, inode number and target,
// lengths, fallocate modes, lock types — with Linux's errno before the
// engine sees them: an engine does not check them again.
//
// All methods are safe for concurrent use.
type Engine interface {
	// Name is the engine's scheme, e.g. "sqlite3" or "mem".
	Name() string
	// Init formats the volume: stores f and creates the root directory (mode
	// 0777, owned by root). On a formatted volume it fails with ErrFormatted
	// unless force is set, in which case it replaces the settings and
	// keeps the file tree.
	Init(ctx context.Context, f Format, force bool) error
	// Load reads the volume's settings; ErrNotFormatted when there are none.
	Load(ctx context.Context) (Format, error)
	// Stats reports the engine's own counters (round trips, retries).
	Stats() Stats
	// Close releases the database connection.
	Close() error

	// NewSession registers a mounted client and returns its id.
	NewSession(ctx context.Context, info SessionInfo) (uint64, error)
	// Heartbeat refreshes a session's liveness.
	Heartbeat(ctx context.Context, sid uint64) error
	// CloseSession releases the session's orphans and locks and forgets it.
	CloseSession(ctx context.Context, sid uint64) error
	// ListSessions lists the sessions, live or stale.
	ListSessions(ctx context.Context) ([]SessionInfo, error)
	// CleanStaleSessions closes every session whose last heartbeat is older
	// than before, and returns how many it closed.
	CleanStaleSessions(ctx context.Context, before time.Time) (int, error)

	// NextInodes reserves n inode numbers for the caller and returns the
	// first; NextSlices does the same for slice ids. Both never return 0.
	NextInodes(ctx context.Context, n uint64) (Ino, error)
	NextSlices(ctx context.Context, n uint64) (uint64, error)
	// Usage reports the space and inodes the volume holds.
	Usage(ctx context.Context) (Usage, error)

	// Lookup finds name in directory parent. "." and ".." are the caller's
	// business and are not passed.
	Lookup(ctx context.Context, parent Ino, name string) (Ino, Attr, error)
	GetAttr(ctx context.Context, ino Ino) (Attr, error)
	// SetAttr changes mode, owner and times, with Linux's rules: only the
	// owner (or root) may chmod or set times to other than now; chown only
	// by root, chgrp by the owner to a group they are in; chmod by a
	// non-member of the file's group clears setgid; chown or chgrp of a
	// non-directory clears setuid and setgid as ModeAfterChown says. Ctime
	// becomes now. set.ClearSetid clears setuid and setgid as
	// ModeAfterWrite says, in the same transaction, with no permission
	// check (ctime changes only when the mode does): it is how a write or
	// truncate by cred takes the bits away, see Truncate and Write.
	SetAttr(ctx context.Context, cred Cred, ino Ino, set SetAttr) (Attr, error)
	// Truncate sets a regular file's length (up or down) and updates
	// mtime/ctime; bytes past the old end read as zeros. It leaves the
	// mode alone: a truncate by a caller without CAP_FSETID is followed by
	// SetAttr with ClearSetid (vfs does it, and only when ModeAfterWrite
	// would change the mode), so that cred may stand for the descriptor's
	// access here (ftruncate) and for the caller there.
	Truncate(ctx context.Context, cred Cred, ino Ino, length uint64) (Attr, error)
	// Fallocate allocates (extends length unless FallocKeepSize), punches a
	// hole or zeroes a range of a regular file.
	Fallocate(ctx context.Context, cred Cred, ino Ino, mode uint8, off, size uint64) (Attr, error)

	// Mknod creates an inode numbered ino (from NextInodes) of type typ
	// named name in parent. mode is the permission bits with the umask
	// already applied; ownership and setgid follow InitAttr. target is a
	// symlink's target. ErrExists if name exists.
	Mknod(ctx context.Context, cred Cred, parent Ino, name string, ino Ino, typ FileType, mode uint16, rdev uint32, target string) (Attr, error)
	// Link adds a hard link to a non-directory ino as parent/name.
	Link(ctx context.Context, cred Cred, ino Ino, parent Ino, name string) (Attr, error)
	// Unlink removes a non-directory entry. When that was the inode's last
	// link, the inode becomes an orphan of session sid: its data stays until
	// ReleaseOrphan, so that a file unlinked while open stays usable.
	// It returns the inode and its attributes after the unlink.
	Unlink(ctx context.Context, cred Cred, parent Ino, name string, sid uint64) (Ino, Attr, error)
	// Rmdir removes an empty directory.
	Rmdir(ctx context.Context, cred Cred, parent Ino, name string) error
	// Rename moves src to dst with renameat2 semantics (flags RenameNoReplace,
	// RenameExchange), and with RenameEmptyDir only when src is an empty
	// directory, checked in the same transaction (see RenameEmptyDir). A
	// replaced non-directory that loses its last link becomes an orphan of
	// session sid, as in Unlink, and is returned as replaced (0 when
	// nothing was replaced or it keeps other links).
	Rename(ctx context.Context, cred Cred, srcParent Ino, srcName string, dstParent Ino, dstName string, flags uint32, sid uint64) (moved Ino, attr Attr, replaced Ino, err error)
	// ReleaseOrphan deletes an orphaned inode of session sid: its chunks go
	// to the dead-slice queue, its space and inode leave Usage. A no-op when
	// ino is not an orphan of sid.
	ReleaseOrphan(ctx context.Context, sid uint64, ino Ino) error
	// Readlink returns a symlink's target.
	Readlink(ctx context.Context, ino Ino) (string, error)
	// Readdir returns up to limit entries of directory ino whose names sort
	// after after (byte order), in that order; with plus, each entry carries
	// its attributes. An empty result means the end, and so does a page
	// shorter than a positive limit: an engine never returns fewer than
	// limit entries while more follow (a listing of a small directory then
	// costs one call).
	Readdir(ctx context.Context, ino Ino, after string, limit int, plus bool) ([]Entry, error)

	// Read returns chunk index idx of ino's slice list, oldest first.
	Read(ctx context.Context, ino Ino, idx uint32) ([]Slice, error)
	// Write appends s to chunk idx of ino (its data is already stored),
	// extends the length to cover it, sets mtime/ctime to mtime and returns
	// the new attributes and the number of records in the chunk's list.
	// It leaves the mode alone: a client commits a slice long after the
	// write(2) that filled it, on behalf of whoever wrote; setuid and
	// setgid go at the write(2) itself, by SetAttr with ClearSetid.
	Write(ctx context.Context, ino Ino, idx uint32, s Slice, mtime int64) (Attr, int, error)
	// Compact replaces the records old, which must still be the first
	// len(old) records of chunk idx, by the single record s (which covers
	// what they covered); the slices that lose their last reference go to
	// the dead-slice queue. ErrConflict when the list no longer starts
	// with old.
	Compact(ctx context.Context, ino Ino, idx uint32, old []Slice, s Slice) error
	// DeadSlices lists up to limit slices whose blocks may be deleted;
	// ForgetSlices drops them from the queue once their blocks are gone.
	DeadSlices(ctx context.Context, limit int) ([]DeadSlice, error)
	ForgetSlices(ctx context.Context, ids []uint64) error

	// Extended attributes. GetXattr: ErrNoAttr when missing. SetXattr
	// honours XattrCreate (ErrExists) and XattrReplace (ErrNoAttr) and
	// sets ctime; only the owner or root may change them. Linux lets any
	// writer change user.* attributes of files and directories; that rule
	// needs the caller's view of the namespace, so vfs applies it and then
	// calls the engine as root.
	GetXattr(ctx context.Context, ino Ino, name string) ([]byte, error)
	ListXattr(ctx context.Context, ino Ino) ([]string, error)
	SetXattr(ctx context.Context, cred Cred, ino Ino, name string, value []byte, flags uint32) error
	RemoveXattr(ctx context.Context, cred Cred, ino Ino, name string) error

	// Flock takes (LockRead, LockWrite) or drops (LockUnlock) a whole-file
	// lock for owner without waiting: ErrAgain when another owner holds a
	// conflicting one.
	Flock(ctx context.Context, ino Ino, owner LockOwner, typ uint32) error
	// GetLk returns the first lock of another owner that conflicts with l,
	// or l with Type LockUnlock when there is none.
	GetLk(ctx context.Context, ino Ino, owner LockOwner, l Lock) (Lock, error)
	// SetLk sets or clears a byte-range lock without waiting, splitting and
	// merging the owner's ranges as fcntl does: ErrAgain on conflict.
	SetLk(ctx context.Context, ino Ino, owner LockOwner, l Lock) error
}

// Stats are an engine's own counters, for benchmarks and metrics.
type Stats struct {
	RoundTrips uint64 // requests sent to the database server
	Retries    uint64 // transactions re-run after a conflict
}

// Describer is implemented by engines that can say more about the server
// they talk to — its version, its durability mode — for 'cairn status'.
type Describer interface {
	Describe() map[string]string
}
