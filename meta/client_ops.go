package meta

import (
	"context"
	"errors"
	"time"
)

func now() time.Time { return time.Now() }

// Access checks that cred may access ino as mask asks (MayRead, MayWrite,
// MayExec), from cached attributes. It always checks, whatever
// CheckPermission says: callers ask only when they must.
func (c *Client) Access(ctx context.Context, cred Cred, ino Ino, mask uint32) error {
	a, err := c.GetAttr(ctx, ino)
	if err != nil {
		return err
	}
	return Access(&a, cred, mask)
}

// Lookup finds name in parent, after checking search permission on parent
// when the client checks permissions. "." and ".." are resolved here.
func (c *Client) Lookup(ctx context.Context, cred Cred, parent Ino, name string) (Ino, Attr, error) {
	pa, err := c.GetAttr(ctx, parent)
	if err != nil {
		return 0, Attr{}, err
	}
	if !pa.IsDir() {
		return 0, Attr{}, ErrNotDir
	}
	if c.cfg.CheckPermission {
		if err := Access(&pa, cred, MayExec); err != nil {
			return 0, Attr{}, err
		}
	}
	switch name {
	case ".":
		return parent, pa, nil
	case "..":
		up := pa.Parent
		if parent == RootIno || up == 0 {
			up = RootIno
		}
		a, err := c.GetAttr(ctx, up)
		return up, a, err
	}
	return c.lookupName(ctx, parent, name)
}

// lookupName finds name in parent from the entry and attribute caches
// when they know it (a name known missing is ErrNotFound), after listing
// parent again when that is due (relistIfDue: the caches may know the
// name but not its attributes), and from the engine otherwise, without a
// permission check.
func (c *Client) lookupName(ctx context.Context, parent Ino, name string) (Ino, Attr, error) {
	if err := CheckName(name); err != nil {
		return 0, Attr{}, err // as the engine would answer, before any cache
	}
	ino, a, ok := c.cachedName(parent, name)
	if !ok && c.relistIfDue(ctx, parent) {
		ino, a, ok = c.cachedName(parent, name)
	}
	if ok && ino == missingEntry {
		return 0, Attr{}, ErrNotFound
	}
	if ok {
		return ino, a, nil
	}
	start := now()
	asked := c.entries.asked()
	ino, a, err := c.eng.Lookup(ctx, parent, name)
	c.observe("lookup", start)
	if errors.Is(err, ErrNotFound) {
		c.nameNotFound(parent, name, asked)
	}
	if err != nil {
		return 0, Attr{}, err
	}
	c.noteReached(parent, ino, a)
	c.nameFound(parent, name, ino, &a, asked)
	return ino, a, nil
}

// cachedName is what the caches answer for name in parent, when they
// can: missingEntry, or an inode and its attributes.
func (c *Client) cachedName(parent Ino, name string) (Ino, Attr, bool) {
	ino, known := c.entries.get(parent, name)
	switch {
	case !known:
		return 0, Attr{}, false
	case ino == missingEntry:
		return ino, Attr{}, true
	}
	a, ok := c.attrs.get(ino)
	return ino, a, ok
}

// GetAttr returns ino's attributes, from the cache when fresh enough.
func (c *Client) GetAttr(ctx context.Context, ino Ino) (Attr, error) {
	if a, ok := c.attrs.get(ino); ok {
		return a, nil
	}
	return c.GetAttrFresh(ctx, ino)
}

// LastAttr returns the attributes this client last read or wrote for ino,
// however long ago, without a round trip; false when it has none. They
// are as fresh as close-to-open makes them while ino is open here.
func (c *Client) LastAttr(ino Ino) (Attr, bool) {
	return c.attrs.peek(ino)
}

// GetAttrFresh reads ino's attributes from the engine, bypassing the cache
// (open does, for close-to-open consistency).
func (c *Client) GetAttrFresh(ctx context.Context, ino Ino) (Attr, error) {
	start := now()
	a, err := c.eng.GetAttr(ctx, ino)
	c.observe("getattr", start)
	if err != nil {
		c.attrs.drop(ino)
		return Attr{}, err
	}
	c.remember(ino, a)
	return a, nil
}

// RefreshAttr reads ino's attributes from the engine and reports whether
// its length or times differ from what this client last knew (true too
// when it knew nothing): another client may have changed the file.
func (c *Client) RefreshAttr(ctx context.Context, ino Ino) (Attr, bool, error) {
	old, known := c.attrs.peek(ino)
	a, err := c.GetAttrFresh(ctx, ino)
	if err != nil {
		return Attr{}, false, err
	}
	changed := !known || old.Length != a.Length || old.Mtime != a.Mtime || old.Ctime != a.Ctime
	return a, changed, nil
}

// SetAttr changes mode, owner and times.
func (c *Client) SetAttr(ctx context.Context, cred Cred, ino Ino, set SetAttr) (Attr, error) {
	start := now()
	a, err := c.eng.SetAttr(ctx, cred, ino, set)
	c.observe("setattr", start)
	return c.afterAttr(ino, a, err)
}

// Truncate sets a regular file's length.
func (c *Client) Truncate(ctx context.Context, cred Cred, ino Ino, length uint64) (Attr, error) {
	before, known := c.attrs.peek(ino)
	if err := c.CheckGrowth(ctx, ino, length); err != nil {
		return Attr{}, err
	}
	start := now()
	a, err := c.eng.Truncate(ctx, cred, ino, length)
	c.observe("truncate", start)
	c.invalidateUsage()
	if err == nil {
		dir, d := c.stats.resized(ino, &a, before.Length, known, false)
		c.chargeQuota(ctx, dir, d)
	}
	return c.afterAttr(ino, a, err)
}

// Fallocate allocates, punches or zeroes a range of a regular file.
func (c *Client) Fallocate(ctx context.Context, cred Cred, ino Ino, mode uint8, off, size uint64) (Attr, error) {
	before, known := c.attrs.peek(ino)
	if mode&FallocKeepSize == 0 {
		if err := c.CheckGrowth(ctx, ino, off+size); err != nil {
			return Attr{}, err
		}
	}
	start := now()
	a, err := c.eng.Fallocate(ctx, cred, ino, mode, off, size)
	c.observe("fallocate", start)
	c.invalidateUsage()
	if err == nil {
		dir, d := c.stats.resized(ino, &a, before.Length, known, false)
		c.chargeQuota(ctx, dir, d)
	}
	return c.afterAttr(ino, a, err)
}

func (c *Client) afterAttr(ino Ino, a Attr, err error) (Attr, error) {
	if err != nil {
		c.attrs.drop(ino)
		return Attr{}, err
	}
	c.remember(ino, a)
	return a, nil
}

func (c *Client) invalidateUsage() {
	c.mu.Lock()
	c.usageAt = time.Time{}
	c.mu.Unlock()
}

// Mknod creates an inode of type typ named name in parent, numbering it
// from this client's batch of inode numbers.
func (c *Client) Mknod(ctx context.Context, cred Cred, parent Ino, name string, typ FileType, mode uint16, rdev uint32, target string) (Ino, Attr, error) {
	if err := refuseTrashCreate(parent, name); err != nil {
		return 0, Attr{}, err
	}
	if err := c.checkQuota(ctx, parent, DirStat{Inodes: 1}); err != nil {
		return 0, Attr{}, err
	}
	ino, err := c.newIno(ctx)
	if err != nil {
		return 0, Attr{}, err
	}
	start := now()
	c.attrs.beginChange(parent)
	a, err := c.eng.Mknod(ctx, cred, parent, name, ino, typ, mode, rdev, target)
	c.observe("mknod", start)
	if err != nil {
		c.nameUnsure(parent, name)
		c.attrs.endChange(parent, nil)
		return 0, Attr{}, err
	}
	c.attrs.endChange(parent, func(p Attr) Attr { return ParentAfterAdd(p, a) })
	c.invalidateUsage()
	c.count(ctx, parent, entryOf(&a))
	c.stats.reached(parent, ino, &a)
	c.remember(ino, a)
	c.nameIs(parent, name, ino, &a)
	if typ == TypeDirectory {
		c.dirMade(ino, start)
	}
	if typ == TypeSymlink {
		c.mu.Lock()
		c.links[ino] = target
		c.mu.Unlock()
	}
	return ino, a, nil
}

// Link adds parent/name as a hard link to ino.
func (c *Client) Link(ctx context.Context, cred Cred, ino Ino, parent Ino, name string) (Attr, error) {
	if err := refuseTrashCreate(parent, name); err != nil {
		return Attr{}, err
	}
	if err := c.checkLinkQuota(ctx, parent, ino); err != nil {
		return Attr{}, err
	}
	start := now()
	c.attrs.beginChange(parent)
	a, err := c.eng.Link(ctx, cred, ino, parent, name)
	c.observe("link", start)
	if err != nil {
		c.nameUnsure(parent, name)
		c.attrs.endChange(parent, nil)
		c.attrs.drop(ino)
		return Attr{}, err
	}
	c.attrs.endChange(parent, func(p Attr) Attr { return ParentAfterAdd(p, a) })
	c.count(ctx, parent, entryOf(&a))
	c.stats.reached(parent, ino, &a)
	c.remember(ino, a)
	c.nameIs(parent, name, ino, &a)
	return a, nil
}

// unlink removes a non-directory; an inode that lost its last link is
// released now, in the unlink's own commit when the engine can and the
// inode is not open here, or on its last local close when it is.
func (c *Client) unlink(ctx context.Context, cred Cred, parent Ino, name string) (Ino, Attr, error) {
	start := now()
	c.attrs.beginChange(parent)
	ino, a, deleted, err := UnlinkDelete(ctx, c.eng, cred, parent, name, c.Session(), c.closedEntry(parent, name))
	c.observe("unlink", start)
	if err != nil {
		c.nameUnsure(parent, name)
		c.attrs.endChange(parent, nil)
		return 0, Attr{}, err
	}
	c.nameGone(parent, name)
	c.attrs.endChange(parent, func(p Attr) Attr { return ParentAfterUnlink(p, a) })
	c.invalidateUsage()
	c.count(ctx, parent, negative(entryOf(&a)))
	c.stats.forgetParent(parent, ino)
	if deleted {
		c.attrs.drop(ino)
		return ino, a, nil
	}
	if a.Nlink == 0 {
		return ino, a, c.orphaned(ctx, ino)
	}
	c.remember(ino, a)
	return ino, a, nil
}

// rmdir removes an empty directory.
func (c *Client) rmdir(ctx context.Context, cred Cred, parent Ino, name string) error {
	ino, _ := c.entries.get(parent, name)
	start := now()
	c.attrs.beginChange(parent)
	changed, err := RmdirAt(ctx, c.eng, cred, parent, name)
	c.observe("rmdir", start)
	if err == nil {
		c.nameGone(parent, name)
	} else {
		c.nameUnsure(parent, name)
	}
	c.attrs.drop(ino)
	if err != nil || changed == 0 {
		c.attrs.endChange(parent, nil)
	} else {
		c.attrs.endChange(parent, func(p Attr) Attr { return ParentAfterRmdir(p, changed) })
	}
	if err == nil {
		c.invalidateUsage()
		c.count(ctx, parent, DirStat{Inodes: -1})
		c.stats.gone(ino)
	}
	return err
}

// rename moves srcParent/srcName to dstParent/dstName (renameat2 flags).
// replaced is the inode that lost its last link to the move, if any.
func (c *Client) rename(ctx context.Context, cred Cred, srcParent Ino, srcName string, dstParent Ino, dstName string, flags uint32) (moved Ino, attr Attr, replaced Ino, err error) {
	moved, attr, replaced, err = c.renameOnce(ctx, cred, srcParent, srcName, dstParent, dstName, flags, true)
	if errors.Is(err, errUnseenTarget) {
		return c.renameOnce(ctx, cred, srcParent, srcName, dstParent, dstName, flags, false)
	}
	return moved, attr, replaced, err
}

// errUnseenTarget is renameOnce's answer when the target it held as
// missing exists after all: nothing moved, and the name is no longer
// held, so that the next try looks it up.
var errUnseenTarget = errors.New("the rename's target exists after all")

// renameOnce is rename, but with guess a move onto a name this client
// holds as missing is sent with RenameNoReplace: another mount may have
// made the name since (within the entry cache duration, or a window of
// the directory's names), and replacing it unseen would leave it out of
// the statistics and quotas (renameCounts), and out of the trash
// (Rename). When the engine says the name exists, it answers
// errUnseenTarget.
func (c *Client) renameOnce(ctx context.Context, cred Cred, srcParent Ino, srcName string, dstParent Ino, dstName string, flags uint32, guess bool) (moved Ino, attr Attr, replaced Ino, err error) {
	old, cached := c.entries.get(dstParent, dstName)
	sent := flags
	if guess && cached && old == missingEntry && flags&(RenameNoReplace|RenameExchange) == 0 {
		sent |= RenameNoReplace
	}
	counted, err := c.renameCounts(ctx, srcParent, srcName, dstParent, dstName, old, cached, flags)
	if err != nil {
		return 0, Attr{}, 0, err
	}
	start := now()
	c.attrs.beginChange(srcParent)
	if dstParent != srcParent {
		c.attrs.beginChange(dstParent)
	}
	moved, attr, replaced, err = c.eng.Rename(ctx, cred, srcParent, srcName, dstParent, dstName, sent, c.Session())
	c.observe("rename", start)
	c.endRename(srcParent, dstParent, err == nil && RenameDerivable(srcParent, srcName, dstParent, dstName, sent, attr), attr)
	c.attrs.drop(old)
	if err != nil {
		c.nameUnsure(srcParent, srcName)
		c.nameUnsure(dstParent, dstName)
		if sent != flags && errors.Is(err, ErrExists) {
			return 0, Attr{}, 0, errUnseenTarget
		}
		return 0, Attr{}, 0, err
	}
	counted(moved, &attr)
	c.remember(moved, attr)
	c.renamedNames(srcParent, srcName, dstParent, dstName, flags, moved, &attr)
	if replaced != 0 {
		c.invalidateUsage()
		if err := c.orphaned(ctx, replaced); err != nil {
			return moved, attr, replaced, err
		}
	}
	return moved, attr, replaced, nil
}

// endRename ends the parents' changes a rename began: their attributes
// are derived from moved's when derive says the rule holds, and read
// again otherwise.
func (c *Client) endRename(srcParent, dstParent Ino, derive bool, moved Attr) {
	rule := func(out, in bool) func(Attr) Attr {
		if !derive {
			return nil
		}
		return func(p Attr) Attr { return ParentAfterRename(p, moved, out, in) }
	}
	if srcParent == dstParent {
		c.attrs.endChange(srcParent, rule(true, true))
		return
	}
	c.attrs.endChange(srcParent, rule(true, false))
	c.attrs.endChange(dstParent, rule(false, true))
}

// Readlink returns a symlink's target, cached for good: targets never
// change.
func (c *Client) Readlink(ctx context.Context, ino Ino) (string, error) {
	c.mu.Lock()
	t, ok := c.links[ino]
	c.mu.Unlock()
	if ok {
		return t, nil
	}
	start := now()
	t, err := c.eng.Readlink(ctx, ino)
	c.observe("readlink", start)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	if len(c.links) > 1<<16 {
		c.links = make(map[Ino]string)
	}
	c.links[ino] = t
	c.mu.Unlock()
	return t, nil
}

// Readdir returns one page of directory ino. With plus, the attributes are
// cached as a lookup would.
func (c *Client) Readdir(ctx context.Context, ino Ino, after string, limit int, plus bool) ([]Entry, error) {
	start := now()
	var mark uint64
	if plus {
		mark = c.attrs.beginListing()
		defer c.attrs.endListing()
	}
	es, err := c.eng.Readdir(ctx, ino, after, limit, plus)
	c.observe("readdir", start)
	if err == nil && ino == RootIno {
		es, err = c.hideTrash(ctx, es, limit, plus)
	}
	if err != nil {
		return nil, err
	}
	if plus {
		c.listedAttrs(ino, es, mark)
		c.entries.putListed(ino, es, c.entryTTL)
	}
	return es, nil
}

// Read returns chunk idx of ino's slice list.
func (c *Client) Read(ctx context.Context, ino Ino, idx uint32) ([]Slice, error) {
	defer c.observe("read", now())
	return c.eng.Read(ctx, ino, idx)
}

// Write commits slice s (already stored) to chunk idx of ino. Quotas are
// checked when the application writes (CheckGrowth, from vfs), not here:
// a refusal at the commit would lose data write(2) already accepted.
func (c *Client) Write(ctx context.Context, ino Ino, idx uint32, s Slice, mtime int64) (Attr, int, error) {
	before, known := c.attrs.peek(ino)
	start := now()
	a, n, err := c.eng.Write(ctx, ino, idx, s, mtime)
	c.observe("write", start)
	if err != nil {
		c.attrs.drop(ino)
		return Attr{}, 0, err
	}
	c.invalidateUsage()
	dir, d := c.stats.resized(ino, &a, before.Length, known, true)
	c.chargeQuota(ctx, dir, d)
	c.remember(ino, a)
	return a, n, nil
}

// Compact replaces the first len(old) records of chunk idx by s.
func (c *Client) Compact(ctx context.Context, ino Ino, idx uint32, old []Slice, s Slice) error {
	defer c.observe("compact", now())
	return c.eng.Compact(ctx, ino, idx, old, s)
}

// DeadSlices and ForgetSlices pass through to the engine.
func (c *Client) DeadSlices(ctx context.Context, limit int) ([]DeadSlice, error) {
	defer c.observe("dead_slices", now())
	return c.eng.DeadSlices(ctx, limit)
}

func (c *Client) ForgetSlices(ctx context.Context, ids []uint64) error {
	defer c.observe("forget_slices", now())
	return c.eng.ForgetSlices(ctx, ids)
}

// Extended attributes.
func (c *Client) GetXattr(ctx context.Context, ino Ino, name string) ([]byte, error) {
	defer c.observe("getxattr", now())
	return c.eng.GetXattr(ctx, ino, name)
}

func (c *Client) ListXattr(ctx context.Context, ino Ino) ([]string, error) {
	defer c.observe("listxattr", now())
	return c.eng.ListXattr(ctx, ino)
}

func (c *Client) SetXattr(ctx context.Context, cred Cred, ino Ino, name string, value []byte, flags uint32) error {
	defer c.observe("setxattr", now())
	c.attrs.drop(ino)
	return c.eng.SetXattr(ctx, cred, ino, name, value, flags)
}

func (c *Client) RemoveXattr(ctx context.Context, cred Cred, ino Ino, name string) error {
	defer c.observe("removexattr", now())
	c.attrs.drop(ino)
	return c.eng.RemoveXattr(ctx, cred, ino, name)
}

// Locks: owner is the kernel's lock owner; the session is added here.
func (c *Client) Flock(ctx context.Context, ino Ino, owner uint64, typ uint32) error {
	defer c.observe("flock", now())
	return c.eng.Flock(ctx, ino, LockOwner{Session: c.Session(), Owner: owner}, typ)
}

func (c *Client) GetLk(ctx context.Context, ino Ino, owner uint64, l Lock) (Lock, error) {
	defer c.observe("getlk", now())
	return c.eng.GetLk(ctx, ino, LockOwner{Session: c.Session(), Owner: owner}, l)
}

func (c *Client) SetLk(ctx context.Context, ino Ino, owner uint64, l Lock) error {
	defer c.observe("setlk", now())
	return c.eng.SetLk(ctx, ino, LockOwner{Session: c.Session(), Owner: owner}, l)
}
