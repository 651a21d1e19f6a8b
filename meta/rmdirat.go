package meta

import "context"

// RmdirTimer is an optional Engine capability, found with Capability: an
// Rmdir that says when it changed the parent, so that a client derives
// the parent's attributes (ParentAfterRmdir) instead of reading them
// again for the kernel's GETATTR that follows every rmdir.
type RmdirTimer interface {
	// RmdirAt is Rmdir; changed is the time of the change, in Unix
	// nanoseconds: parent's new mtime and ctime.
	RmdirAt(ctx context.Context, cred Cred, parent Ino, name string) (changed int64, err error)
}

// RmdirAt calls e's RmdirAt when e has one, and Rmdir otherwise (changed
// 0: not known). The wrappers (Checked, WithServerWait, the metrics
// wrapper, Tracker) have one that passes the call on through this
// function, as they do UnlinkDelete.
func RmdirAt(ctx context.Context, e Engine, cred Cred, parent Ino, name string) (int64, error) {
	if r, ok := e.(RmdirTimer); ok {
		return r.RmdirAt(ctx, cred, parent, name)
	}
	return 0, e.Rmdir(ctx, cred, parent, name)
}
