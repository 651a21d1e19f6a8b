package meta

import (
	"context"
	"sync"
)

// heldLocks are the locks this client's session holds, as it set them,
// so that it can take them again on the engine a migration moves it to.
type heldLocks struct {
	mu     sync.Mutex
	flocks map[lockKey]uint32 // LockRead or LockWrite
	ranges map[lockKey][]Lock // as ApplyLock keeps them
}

// lockKey is a lock's inode and the kernel's owner of it.
type lockKey struct {
	ino   Ino
	owner uint64
}

func newHeldLocks() *heldLocks {
	return &heldLocks{flocks: map[lockKey]uint32{}, ranges: map[lockKey][]Lock{}}
}

func (h *heldLocks) flock(ino Ino, owner uint64, typ uint32) {
	h.mu.Lock()
	defer h.mu.Unlock()
	k := lockKey{ino, owner}
	if typ == LockUnlock {
		delete(h.flocks, k)
	} else {
		h.flocks[k] = typ
	}
}

func (h *heldLocks) setLk(ino Ino, owner uint64, l Lock) {
	h.mu.Lock()
	defer h.mu.Unlock()
	k := lockKey{ino, owner}
	if r := ApplyLock(h.ranges[k], l); len(r) > 0 {
		h.ranges[k] = r
	} else {
		delete(h.ranges, k)
	}
}

// sessionRecorder is the engine beneath a Client's Tracker: it notes
// what the client's session comes to hold — the locks it took, the
// inodes it orphaned while they are open here — inside the tracked call,
// so that once a pause has stopped every call, the notes are complete.
type sessionRecorder struct {
	Engine
	c *Client
}

// Unwrap returns the engine beneath, for Capability.
func (r sessionRecorder) Unwrap() Engine { return r.Engine }

func (r sessionRecorder) Flock(ctx context.Context, ino Ino, owner LockOwner, typ uint32) error {
	err := r.Engine.Flock(ctx, ino, owner, typ)
	if err == nil {
		r.c.locks.flock(ino, owner.Owner, typ)
	}
	return err
}

func (r sessionRecorder) SetLk(ctx context.Context, ino Ino, owner LockOwner, l Lock) error {
	err := r.Engine.SetLk(ctx, ino, owner, l)
	if err == nil {
		r.c.locks.setLk(ino, owner.Owner, l)
	}
	return err
}

func (r sessionRecorder) Unlink(ctx context.Context, cred Cred, parent Ino, name string, sid uint64) (Ino, Attr, error) {
	ino, a, err := r.Engine.Unlink(ctx, cred, parent, name, sid)
	if err == nil && a.Nlink == 0 {
		r.c.markOrphan(ino)
	}
	return ino, a, err
}

func (r sessionRecorder) UnlinkDelete(ctx context.Context, cred Cred, parent Ino, name string, sid uint64, expect Ino) (Ino, Attr, bool, error) {
	ino, a, deleted, err := UnlinkDelete(ctx, r.Engine, cred, parent, name, sid, expect)
	if err == nil && !deleted && a.Nlink == 0 {
		r.c.markOrphan(ino)
	}
	return ino, a, deleted, err
}

func (r sessionRecorder) Rename(ctx context.Context, cred Cred, srcParent Ino, srcName string, dstParent Ino, dstName string, flags uint32, sid uint64) (Ino, Attr, Ino, error) {
	moved, a, replaced, err := r.Engine.Rename(ctx, cred, srcParent, srcName, dstParent, dstName, flags, sid)
	if err == nil && replaced != 0 {
		r.c.markOrphan(replaced)
	}
	return moved, a, replaced, err
}

// markOrphan notes that ino lost its last link, if this client holds it
// open (orphaned does the rest once the call returned).
func (c *Client) markOrphan(ino Ino) {
	c.mu.Lock()
	if o := c.open[ino]; o != nil {
		o.orphan = true
	}
	c.mu.Unlock()
}

var _ UnlinkDeleter = sessionRecorder{}

// RmdirAt passes the call on, keeping the engine's answer of when it
// changed the parent (RmdirTimer).
func (r sessionRecorder) RmdirAt(ctx context.Context, cred Cred, parent Ino, name string) (int64, error) {
	return RmdirAt(ctx, r.Engine, cred, parent, name)
}
