package meta

import (
	"context"
	"errors"
	"time"
)

// dirWindow is what the client knows of one directory's names as a whole.
// Until until, every name of it that the entry cache does not hold is
// missing (see madeEmpty for why that holds). A window opens when this
// client makes the directory, or lists it again (relist): a phase of
// creates often lasts longer than a window (mdtest, an unpacked archive),
// or works in a directory this client did not make (one made by another
// mount, or before this mount started), and the kernel's look-up before
// each create would cost a round trip. So the client counts the look-ups
// that found a name missing in each directory it holds no window of, and
// once they cost about what a listing does, it lists the directory and
// knows all its names for another MissingEntryTTL, as a look-up of each
// at the listing's start would.
//
// A listing cannot tell a look-up of a name that exists anything the
// look-up wants but its inode: the kernel asks for the attributes too
// (after the entry cache duration, it looks each name up again). So the
// client also counts the look-ups that found a name there, and once they
// cost about what a listing with attributes does, it lists the directory
// with them (readdirplus): their names and attributes are cached as the
// look-ups would cache them.
type dirWindow struct {
	until time.Time
	// names estimates the directory's size: the last listing's count
	// plus the names this client's changes put since (a listing's cost);
	// for a directory never listed here, a lower bound (0 at first, the
	// bound a listing stopped at after that).
	names int
	// misses counts the look-ups that found a name missing since until
	// (or since the last listing that was dropped), but for those
	// answered while a listing runs; found, those that found a name
	// there since the last listing.
	misses, found int
	// listing is set while a relist runs; changed, when a name of the
	// directory changed meanwhile, which makes the listing stale.
	listing, changed bool
	// never: the directory is not to be listed again (too big, or gone).
	never bool
}

const (
	// relistMinMisses is how many look-ups must find a name missing
	// outside a window before the directory is listed; one more for
	// every relistNamesPerMiss names it holds.
	relistMinMisses    = 4
	relistNamesPerMiss = 64
	// relistNamesPerFound is the same for a listing with attributes,
	// due after look-ups that found their name: such a listing costs
	// more per name (every entry's attributes are read too).
	relistNamesPerFound = 16
	// relistMax is the most names a directory may hold to be listed
	// again; a bigger one goes back to look-ups of each name.
	relistMax = 1 << 14
)

// relistBound is the most names a listing due after n look-ups, each
// worth per names of it, may read: twice what those look-ups paid for,
// so that a directory of unknown size costs at most that much when it
// turns out bigger, and one of known size (names/per look-ups) fits
// with room to grow.
func relistBound(n, per int) int {
	return min(relistMax, 2*max(n, relistMinMisses)*per)
}

// lookedUpLocked counts a look-up of a name of parent that the engine
// answered: missing, or found. It starts parent's record when the client
// has none, but for the trash's folders: nobody creates names there
// (refuseTrashCreate), and a listing of them would rarely pay. A look-up
// answered while a listing runs is not counted, nor one that found a name
// missing while a window is open.
func (c *entryCache) lookedUpLocked(parent Ino, missing bool) {
	w := c.dirs[parent]
	if w == nil {
		if IsTrashIno(parent) {
			return
		}
		c.makeDirRoomLocked()
		w = &dirWindow{}
		c.dirs[parent] = w
	}
	switch {
	case w.listing:
	case !missing:
		w.found++
	case !time.Now().Before(w.until):
		w.misses++
	}
}

// relistDue returns parent's window, marked as listing, the most names
// the listing may read and whether it is to read their attributes too,
// when the look-ups that found names there, or found them missing since
// its window ended, make it time to list the directory again.
func (c *entryCache) relistDue(parent Ino) (w *dirWindow, bound int, plus bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w = c.dirs[parent]
	if w == nil || w.listing || w.never {
		return nil, 0, false
	}
	switch {
	case w.found >= max(relistMinMisses, w.names/relistNamesPerFound):
		bound, plus = relistBound(w.found, relistNamesPerFound), true
	case time.Now().Before(w.until):
		return nil, 0, false
	case w.misses >= max(relistMinMisses, w.names/relistNamesPerMiss):
		bound = relistBound(w.misses, relistNamesPerMiss)
	default:
		return nil, 0, false
	}
	w.listing, w.changed = true, false
	return w, bound, plus
}

// relisted installs the listing es of directory dir, begun at since, when
// w is still dir's window and no name of dir changed while it ran: every
// listed name is cached for ttl from now, and the window reopens until
// since+ttl. It reports whether it did.
func (c *entryCache) relisted(dir Ino, w *dirWindow, since time.Time, es []Entry, ttl time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dirs[dir] != w {
		return false
	}
	w.listing, w.misses, w.found = false, 0, 0
	if w.changed || ttl <= 0 {
		return false
	}
	c.makeRoomLocked(len(es))
	if c.dirs[dir] != w { // the cache was full and emptied
		return false
	}
	expires := time.Now().Add(ttl)
	for i := range es {
		c.m[entryKey{dir, es[i].Name}] = cachedEntry{ino: es[i].Ino, expires: expires}
	}
	w.until, w.names = since.Add(ttl), len(es)
	return true
}

// relistFailed ends a listing of dir that failed. A directory that held
// more than bound names is listed next with a bound twice as big, after
// as many more look-ups, and never again past relistMax; one that is gone
// never again; otherwise (an interrupted request, an engine that did not
// answer) it is tried again after as many look-ups.
func (c *entryCache) relistFailed(dir Ino, w *dirWindow, bound int, tooBig, gone bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dirs[dir] != w {
		return
	}
	w.listing, w.misses, w.found = false, 0, 0
	switch {
	case gone, tooBig && bound >= relistMax:
		w.never = true
	case tooBig:
		w.names = max(w.names, bound+1)
	}
}

// relistIfDue lists directory dir again when the look-ups there made it
// worth it (relistDue), with the entries' attributes when those that
// found their name did, and reports whether the client knows all of
// dir's names again.
func (c *Client) relistIfDue(ctx context.Context, dir Ino) bool {
	w, bound, plus := c.entries.relistDue(dir)
	if w == nil {
		return false
	}
	start := now()
	var mark uint64
	if plus {
		mark = c.attrs.beginListing()
		defer c.attrs.endListing()
	}
	all, err := readAll(ctx, c.eng, dir, bound, plus)
	c.observe("readdir", start)
	if err != nil {
		gone := errors.Is(err, ErrNotFound) || errors.Is(err, ErrNotDir)
		c.entries.relistFailed(dir, w, bound, errors.Is(err, errTooMany), gone)
		return false
	}
	if !c.entries.relisted(dir, w, start, all, c.MissingEntryTTL()) {
		return false
	}
	if plus {
		c.listedAttrs(dir, all, mark)
	}
	return true
}
