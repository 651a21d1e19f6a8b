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
type dirWindow struct {
	until time.Time
	// names estimates the directory's size: the last listing's count
	// plus the names this client's changes put since (a listing's cost);
	// for a directory never listed here, a lower bound (0 at first, the
	// bound a listing stopped at after that).
	names int
	// misses counts the look-ups that found a name missing since until
	// (or since the last listing that was dropped), but for those
	// answered while a listing runs.
	misses int
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
	// relistMax is the most names a directory may hold to be listed
	// again; a bigger one goes back to look-ups of each name.
	relistMax = 1 << 14
)

// relistBound is the most names a listing due after misses look-ups may
// read: twice what those look-ups paid for, so that a directory of
// unknown size costs at most that much when it turns out bigger, and one
// of known size (names/relistNamesPerMiss look-ups) fits with room to
// grow.
func relistBound(misses int) int {
	return min(relistMax, 2*max(misses, relistMinMisses)*relistNamesPerMiss)
}

// missedLocked counts a look-up of a name of parent that the engine found
// missing. It starts parent's record when the client has none, but for
// the trash's folders: nobody creates names there (refuseTrashCreate), so
// a window would save nothing. A look-up answered while a window is open
// or a listing runs is not counted.
func (c *entryCache) missedLocked(parent Ino) {
	w := c.dirs[parent]
	if w == nil {
		if IsTrashIno(parent) {
			return
		}
		c.makeDirRoomLocked()
		w = &dirWindow{}
		c.dirs[parent] = w
	}
	if w.listing || time.Now().Before(w.until) {
		return
	}
	w.misses++
}

// relistDue returns parent's window, marked as listing, and the most
// names the listing may read, when the look-ups that found names missing
// there since its window ended make it time to list the directory again.
func (c *entryCache) relistDue(parent Ino) (*dirWindow, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.dirs[parent]
	if w == nil || w.listing || time.Now().Before(w.until) {
		return nil, 0
	}
	if w.never || w.misses < max(relistMinMisses, w.names/relistNamesPerMiss) {
		return nil, 0
	}
	w.listing, w.changed = true, false
	return w, relistBound(w.misses)
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
	w.listing, w.misses = false, 0
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
	w.listing, w.misses = false, 0
	switch {
	case gone, tooBig && bound >= relistMax:
		w.never = true
	case tooBig:
		w.names = max(w.names, bound+1)
	}
}

// relistIfDue lists directory dir again when no window of it is open and
// the look-ups that found names missing there made it worth it
// (relistDue), and reports whether the client knows all of dir's names
// again.
func (c *Client) relistIfDue(ctx context.Context, dir Ino) bool {
	w, bound := c.entries.relistDue(dir)
	if w == nil {
		return false
	}
	start := now()
	all, err := readAll(ctx, c.eng, dir, bound)
	c.observe("readdir", start)
	if err != nil {
		gone := errors.Is(err, ErrNotFound) || errors.Is(err, ErrNotDir)
		c.entries.relistFailed(dir, w, bound, errors.Is(err, errTooMany), gone)
		return false
	}
	return c.entries.relisted(dir, w, start, all, c.MissingEntryTTL())
}
