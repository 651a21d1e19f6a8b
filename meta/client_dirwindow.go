package meta

import (
	"context"
	"errors"
	"time"
)

// dirWindow is what the client knows of one directory's names as a whole.
// Until until, every name of it that the entry cache does not hold is
// missing (see madeEmpty for why that holds). The window opens when this
// client makes the directory and lasts MissingEntryTTL; a phase of creates
// there often lasts longer (mdtest, an unpacked archive), and from then on
// the kernel's look-up before each create would cost a round trip. So the
// window is kept after it ends: once the look-ups that went to the engine
// since cost about what a listing does, the client lists the directory
// again (relist) and knows all its names for another MissingEntryTTL, as a
// look-up of each at the listing's start would.
type dirWindow struct {
	until time.Time
	// names estimates the directory's size: the last listing's count
	// plus the names this client's changes put since (a listing's cost).
	names int
	// misses counts the look-ups sent to the engine since until (or
	// since the last listing that was dropped), but for those sent while
	// a listing runs.
	misses int
	// listing is set while a relist runs; changed, when a name of the
	// directory changed meanwhile, which makes the listing stale.
	listing, changed bool
}

const (
	// relistMinMisses is how many look-ups go to the engine after a
	// window ends before the directory is listed again; one more for
	// every relistNamesPerMiss names it holds.
	relistMinMisses    = 4
	relistNamesPerMiss = 64
	// relistMax is the most names a directory may hold to be listed
	// again; a bigger one goes back to look-ups of each name.
	relistMax = 1 << 14
)

// relistDue counts a look-up of a name of parent that the cache could not
// answer and returns parent's window when it is time to list the
// directory again, marked as listing.
func (c *entryCache) relistDue(parent Ino) *dirWindow {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.dirs[parent]
	if w == nil || w.listing || time.Now().Before(w.until) {
		return nil
	}
	w.misses++
	if w.misses < max(relistMinMisses, w.names/relistNamesPerMiss) {
		return nil
	}
	w.listing, w.changed = true, false
	return w
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

// relistFailed ends a listing of dir that failed: for good when the
// directory is too big to be listed again or is gone (w is dropped), and
// otherwise (an interrupted request, an engine that did not answer)
// until enough look-ups make it due again.
func (c *entryCache) relistFailed(dir Ino, w *dirWindow, forGood bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dirs[dir] != w {
		return
	}
	if forGood {
		delete(c.dirs, dir)
		return
	}
	w.listing, w.misses = false, 0
}

// relistIfDue lists directory dir again when its window ended and the
// look-ups since made it worth it (relistDue), and reports whether the
// client knows all of dir's names again.
func (c *Client) relistIfDue(ctx context.Context, dir Ino) bool {
	w := c.entries.relistDue(dir)
	if w == nil {
		return false
	}
	start := now()
	all, err := readAll(ctx, c.eng, dir, relistMax)
	if err != nil {
		// Too big, or gone: for good; otherwise (an interrupted
		// request, an engine that did not answer) it is tried again.
		forGood := errors.Is(err, errTooMany) || errors.Is(err, ErrNotFound) || errors.Is(err, ErrNotDir)
		c.entries.relistFailed(dir, w, forGood)
		return false
	}
	c.observe("readdir", start)
	return c.entries.relisted(dir, w, start, all, c.MissingEntryTTL())
}
