package meta

import (
	"context"
	"errors"
)

// renameCounts prepares the statistics and quota usage of a rename of
// srcParent/srcName onto dstParent/dstName (old is the inode the entry
// cache has there, if any), refuses with ErrQuota a move into a quota
// tree that cannot take what moves, and returns what counts the rename
// once it succeeded. It needs what the rename replaces: from the
// attribute cache, else from one Lookup (a rename's only added round
// trip, and only when the kernel's look-up of the target did not come
// through this client). With quotas, a directory that moves into
// another quota tree is counted whole first (CountTree).
func (c *Client) renameCounts(ctx context.Context, srcParent Ino, srcName string, dstParent Ino, dstName string, old Ino, cached bool, flags uint32) (func(moved Ino, attr *Attr), error) {
	if !c.stats.on() {
		return func(Ino, *Attr) {}, nil
	}
	var victim Attr
	found := false
	if flags&RenameNoReplace == 0 {
		if old != 0 {
			victim, found = c.attrs.peek(old)
		}
		// A name this client holds as missing replaces nothing: no
		// look-up (the usual write-then-rename-into-place).
		if !found && !(cached && old == missingEntry) {
			if ino, a, err := c.eng.Lookup(ctx, dstParent, dstName); err == nil {
				old, victim, found = ino, a, true
			}
		}
	}
	moving, err := c.movingUsage(ctx, srcParent, srcName, dstParent)
	if err != nil {
		return nil, err
	}
	return func(moved Ino, attr *Attr) {
		if found && old == moved {
			return // a rename onto another name of the same inode does nothing
		}
		entry := entryOf(attr)
		c.stats.add(srcParent, negative(entry))
		c.stats.add(dstParent, entry)
		if moving != nil {
			c.chargeQuota(ctx, srcParent, negative(*moving))
			c.chargeQuota(ctx, dstParent, *moving)
		}
		c.stats.forgetParent(srcParent, moved)
		c.stats.reached(dstParent, moved, attr)
		if attr.IsDir() {
			c.quota.mu.Lock()
			c.quota.parents[moved] = dstParent
			c.quota.mu.Unlock()
		}
		if !found {
			return
		}
		gone := entryOf(&victim)
		c.count(ctx, dstParent, negative(gone))
		if flags&RenameExchange != 0 {
			c.count(ctx, srcParent, gone)
			c.stats.forgetParent(dstParent, old)
			c.stats.reached(srcParent, old, &victim)
			return
		}
		c.stats.forgetParent(dstParent, old)
		if victim.IsDir() {
			c.stats.gone(old)
		}
	}, nil
}

// movingUsage is what srcParent/srcName holds (its entry, and for a
// directory everything under it), checked against the quotas above
// dstParent that are not above srcParent; nil when no quota is involved.
func (c *Client) movingUsage(ctx context.Context, srcParent Ino, srcName string, dstParent Ino) (*DirStat, error) {
	from, quotas, err := c.quotasAbove(ctx, srcParent)
	if err != nil || len(quotas) == 0 {
		return nil, err
	}
	to, _, err := c.quotasAbove(ctx, dstParent)
	if err != nil {
		return nil, err
	}
	if len(from) == 0 && len(to) == 0 {
		return nil, nil
	}
	ino, a, err := c.eng.Lookup(ctx, srcParent, srcName)
	if errors.Is(err, ErrNotFound) {
		return nil, nil // the rename itself will say so
	}
	if err != nil {
		return nil, err
	}
	u := entryOf(&a)
	if a.IsDir() && !sameQuotas(from, to) {
		tree, err := CountTree(ctx, c.eng, ino)
		if err != nil {
			return nil, err
		}
		for _, d := range tree {
			u = u.Add(d)
		}
	}
	if err := c.checkQuota(ctx, dstParent, u, from...); err != nil {
		return nil, err
	}
	return &u, nil
}

func sameQuotas(a, b []Ino) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
