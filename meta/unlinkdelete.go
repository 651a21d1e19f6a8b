package meta

import "context"

// UnlinkDeleter is an optional Engine capability, found with Capability:
// an unlink that deletes a file losing its last link in the same durable
// commit, instead of leaving it an orphan that a second commit
// (ReleaseOrphan) deletes. A client may ask for it only for an inode none
// of its handles holds open; another client's open handles are not kept
// either way (an orphan belongs to the unlinking session only).
type UnlinkDeleter interface {
	// UnlinkDelete is Unlink, except that when the entry parent/name names
	// inode expect and that was its last link, the inode is deleted as
	// ReleaseOrphan would delete it (its chunks to the dead-slice queue,
	// its space and inode out of Usage), and deleted says so. An engine
	// may leave it an orphan of sid anyway (deleted false, Nlink 0), for
	// instance when the file is too large for one transaction; the caller
	// then releases it as after Unlink. expect 0 asks for a plain Unlink.
	UnlinkDelete(ctx context.Context, cred Cred, parent Ino, name string, sid uint64, expect Ino) (ino Ino, a Attr, deleted bool, err error)
}

// UnlinkDelete calls e's UnlinkDelete when e has one, and Unlink
// otherwise. The wrappers (Checked, WithServerWait, the metrics wrapper)
// have one that passes the call on through this function, so that an
// engine's own UnlinkDelete is reached behind them with their checks,
// retries and counts, and Unlink when the engine has none.
func UnlinkDelete(ctx context.Context, e Engine, cred Cred, parent Ino, name string, sid uint64, expect Ino) (Ino, Attr, bool, error) {
	if d, ok := e.(UnlinkDeleter); ok && expect != 0 {
		return d.UnlinkDelete(ctx, cred, parent, name, sid, expect)
	}
	ino, a, err := e.Unlink(ctx, cred, parent, name, sid)
	return ino, a, false, err
}
