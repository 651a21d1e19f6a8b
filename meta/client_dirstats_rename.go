package meta

import (
	"context"
	"errors"
)

// renameCounts prepares the statistics and quota usage of a rename of
// srcParent/srcName onto dstParent/dstName (old is the inode the entry
// cache has there, if any), refuses with ErrQuota a move into a quota
// tree that cannot take what moves (both ways for RenameExchange), and
// returns what counts the rename once it succeeded. It needs what the
// rename replaces: from the attribute cache, else from one Lookup (a
// rename's only added round trip, and only when the kernel's look-up of
// the target did not come through this client). With quotas, a
// directory that moves into another quota tree is counted whole first
// (treeUsage).
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
	exchange := flags&RenameExchange != 0 && found
	var back *quotaSide
	if exchange {
		back = &quotaSide{ino: old, attr: victim}
	}
	moving, returning, err := c.movingUsage(ctx, srcParent, srcName, dstParent, back)
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
			c.setQuotaParent(moved, dstParent)
		}
		if !found {
			return
		}
		gone := entryOf(&victim)
		c.stats.forgetParent(dstParent, old)
		if exchange {
			c.stats.add(dstParent, negative(gone))
			c.stats.add(srcParent, gone)
			if returning != nil {
				c.chargeQuota(ctx, dstParent, negative(*returning))
				c.chargeQuota(ctx, srcParent, *returning)
			}
			c.stats.reached(srcParent, old, &victim)
			if victim.IsDir() {
				c.setQuotaParent(old, srcParent)
			}
			return
		}
		c.count(ctx, dstParent, negative(gone))
		if victim.IsDir() {
			c.stats.gone(old)
		}
	}, nil
}

// quotaSide is an entry a rename moves: its inode and attributes.
type quotaSide struct {
	ino  Ino
	attr Attr
}

// movingUsage is what srcParent/srcName holds (its entry, and for a
// directory everything under it) and, for an exchange, what back (the
// entry at the destination) holds, checked against the quotas each side
// enters: a quota above one side only gains what enters it less what
// leaves it. Both are nil when no quota is involved. The source comes
// from this client's caches when it has them, else from one Lookup.
func (c *Client) movingUsage(ctx context.Context, srcParent Ino, srcName string, dstParent Ino, back *quotaSide) (moving, returning *DirStat, err error) {
	from, quotas, err := c.quotasAbove(ctx, srcParent)
	if err != nil || len(quotas) == 0 {
		return nil, nil, err
	}
	to, _, err := c.quotasAbove(ctx, dstParent)
	if err != nil {
		return nil, nil, err
	}
	if len(from) == 0 && len(to) == 0 {
		return nil, nil, nil
	}
	src, ok, err := c.cachedOrLookup(ctx, srcParent, srcName)
	if err != nil || !ok {
		return nil, nil, err // a missing source: the rename itself will say so
	}
	u, err := c.sideUsage(ctx, src, from, to)
	if err != nil {
		return nil, nil, err
	}
	var v DirStat
	if back != nil {
		if v, err = c.sideUsage(ctx, *back, to, from); err != nil {
			return nil, nil, err
		}
	}
	if err := c.checkQuota(ctx, dstParent, u.Add(negative(v)), from...); err != nil {
		return nil, nil, err
	}
	if back == nil {
		return &u, nil, nil
	}
	if err := c.checkQuota(ctx, srcParent, v.Add(negative(u)), to...); err != nil {
		return nil, nil, err
	}
	return &u, &v, nil
}

// cachedOrLookup finds parent/name in this client's entry and attribute
// caches, else with one Lookup; false when it does not exist.
func (c *Client) cachedOrLookup(ctx context.Context, parent Ino, name string) (quotaSide, bool, error) {
	if ino, ok := c.entries.get(parent, name); ok && ino != missingEntry {
		if a, ok := c.attrs.peek(ino); ok {
			return quotaSide{ino: ino, attr: a}, true, nil
		}
	}
	ino, a, err := c.eng.Lookup(ctx, parent, name)
	if errors.Is(err, ErrNotFound) {
		return quotaSide{}, false, nil
	}
	if err != nil {
		return quotaSide{}, false, err
	}
	return quotaSide{ino: ino, attr: a}, true, nil
}

// sideUsage is what an entry moving from the quotas from to the quotas
// to carries: its own entry, and a directory's whole tree when the two
// differ (within the same quotas a tree's usage does not move).
func (c *Client) sideUsage(ctx context.Context, side quotaSide, from, to []Ino) (DirStat, error) {
	u := entryOf(&side.attr)
	if !side.attr.IsDir() || sameQuotas(from, to) {
		return u, nil
	}
	tree, err := c.treeUsage(ctx, side.ino)
	if err != nil {
		return DirStat{}, err
	}
	return u.Add(tree), nil
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
