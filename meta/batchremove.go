package meta

import "context"

// BatchRemover is implemented by engines that remove many names of one
// directory at once, for the trash purge and 'cairn rmr'; callers find it
// with Capability and fall back to Unlink and ReleaseOrphan without it.
//
// RemoveEntries removes the non-directory entries names of directory
// parent, with Unlink's permission checks for cred. An inode that loses
// its last link is deleted in the same transaction — its chunks go to
// the dead-slice queue, its space and inode leave Usage — instead of
// becoming an orphan, unless the engine cannot delete it within one
// transaction's limits (etcd's 128 operations): those it leaves as
// orphans of session sid and returns in Orphans, for the caller's
// ReleaseOrphan. A name that does not exist (removed meanwhile) is
// skipped. A directory among names, or a name the caller may not delete,
// fails the whole batch (ErrIsDir, ErrAccess, ErrNotPermitted) and
// changes nothing. The engine may split a batch into several
// transactions; each name's removal is atomic, and the parent's mtime,
// ctime and nlink stay exact.
//
// An inode is deleted even if another session holds it open, as when that
// session's files are unlinked by another client today (an orphan belongs
// to the session that unlinked it); the callers only pass names nobody
// should hold open, and the Client passes the inodes it holds open
// itself through Unlink instead.
type BatchRemover interface {
	RemoveEntries(ctx context.Context, cred Cred, parent Ino, names []string, sid uint64) (BatchRemoval, error)
}

// BatchRemoval is what RemoveEntries did.
type BatchRemoval struct {
	Removed int   // entries removed (names that did not exist are not counted)
	Orphans []Ino // inodes left as orphans of the session, for ReleaseOrphan
}

// BatchRemoveLimit is how many names a caller passes to RemoveEntries at
// most.
const BatchRemoveLimit = 256
