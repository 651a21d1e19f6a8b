package meta

import (
	"sync"
	"sync/atomic"
	"time"
)

// attrCache holds inode attributes until they expire.
type attrCache struct {
	mu sync.Mutex
	m  map[Ino]cachedAttr
	// changing counts, per directory, this client's changes of its
	// entries still waiting for the engine's answer (see beginChange).
	changing map[Ino]*pendingChanges
	stored   uint64 // counts puts: which came before a change began
	// touched counts every put, derived change and drop: what a listing
	// with attributes, which began at a count, must not replace
	// (putListed). gone holds the inodes dropped while listings
	// (how many run) were under way, with their count.
	touched  uint64
	listings int
	gone     map[Ino]uint64
}

type pendingChanges struct {
	count int
	// overlapped is set when two changes were in flight at once: their
	// order at the engine is unknown, so neither may derive.
	overlapped bool
	// before is attrCache.stored when the change began: attributes
	// stored later may already hold the change, and derive must not
	// apply it twice.
	before uint64
}

type cachedAttr struct {
	attr    Attr
	expires time.Time
	stored  uint64
	touched uint64
}

func newAttrCache() *attrCache {
	return &attrCache{m: make(map[Ino]cachedAttr), changing: make(map[Ino]*pendingChanges)}
}

func (c *attrCache) get(ino Ino) (Attr, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[ino]
	if !ok {
		return Attr{}, false
	}
	if time.Now().After(e.expires) {
		delete(c.m, ino)
		return Attr{}, false
	}
	return e.attr, true
}

// peek returns the attributes last cached for ino, expired or not.
func (c *attrCache) peek(ino Ino) (Attr, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[ino]
	return e.attr, ok
}

// put caches a for ttl. With ttl <= 0 (no attribute cache) a is kept as
// already expired: get never serves it, peek does (Client.LastAttr).
func (c *attrCache) put(ino Ino, a Attr, ttl time.Duration) {
	expires := attrExpiry(ttl)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.makeRoomLocked(1)
	c.storeLocked(ino, a, expires)
}

// beginListing notes that a listing with attributes is under way and
// returns its mark for putListed; endListing must follow.
func (c *attrCache) beginListing() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.listings++
	if c.gone == nil {
		c.gone = make(map[Ino]uint64)
	}
	return c.touched
}

func (c *attrCache) endListing() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.listings--; c.listings == 0 {
		c.gone = nil
	}
}

// putListed caches the attributes of every entry of a listing with
// attributes that began at mark (beginListing), as put would one by one
// under one lock and one clock reading, and returns the entries it
// stored. An inode this client stored, derived or dropped attributes of
// since keeps what it has, as that may hold a change the listing
// predates, and so does a directory with a change of its entries under
// way (endChange decides).
func (c *attrCache) putListed(es []Entry, ttl time.Duration, mark uint64) []Entry {
	expires := attrExpiry(ttl)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.makeRoomLocked(len(es))
	stored := es[:0:0]
	for i := range es {
		ino := es[i].Ino
		if es[i].Attr == nil || c.gone[ino] > mark || c.changing[ino] != nil {
			continue
		}
		if e, ok := c.m[ino]; ok && e.touched > mark {
			continue
		}
		c.storeLocked(ino, *es[i].Attr, expires)
		stored = append(stored, es[i])
	}
	return stored
}

// attrExpiry is when attributes cached for ttl expire: never served (the
// zero time) without an attribute cache.
func attrExpiry(ttl time.Duration) time.Time {
	if ttl <= 0 {
		return time.Time{}
	}
	return time.Now().Add(ttl)
}

// makeRoomLocked empties the cache when n more would pass its bound.
func (c *attrCache) makeRoomLocked(n int) {
	if len(c.m)+n > 1<<20 {
		c.m = make(map[Ino]cachedAttr)
	}
}

func (c *attrCache) storeLocked(ino Ino, a Attr, expires time.Time) {
	c.stored++
	c.touched++
	c.m[ino] = cachedAttr{attr: a, expires: expires, stored: c.stored, touched: c.touched}
}

func (c *attrCache) drop(inos ...Ino) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ino := range inos {
		c.forgetLocked(ino)
	}
}

// forgetLocked drops ino's attributes, noting it for the listings under
// way (putListed).
func (c *attrCache) forgetLocked(ino Ino) {
	delete(c.m, ino)
	c.touched++
	if c.listings > 0 {
		c.gone[ino] = c.touched
	}
}

// beginChange notes that a change of directory dir's entries is being
// sent to the engine; endChange must follow it.
func (c *attrCache) beginChange(dir Ino) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.changing[dir]
	if p == nil {
		p = &pendingChanges{before: c.stored + 1}
		c.changing[dir] = p
	}
	if p.count > 0 {
		p.overlapped = true
	}
	p.count++
}

// endChange ends what beginChange began. The cache takes derive's answer
// for dir's attributes, without a round trip and until the expiry they
// already had, only when the change succeeded (derive is not nil), no
// other change of dir overlapped it, and dir's attributes are cached,
// fresh and were stored before the change began (later ones may or may
// not hold it already). Otherwise they are dropped, to be read again.
func (c *attrCache) endChange(dir Ino, derive func(Attr) Attr) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.changing[dir]
	alone := p != nil && !p.overlapped
	if p != nil {
		if p.count--; p.count == 0 {
			delete(c.changing, dir)
		}
	}
	e, ok := c.m[dir]
	if !alone || derive == nil || !ok || e.stored >= p.before || !time.Now().Before(e.expires) {
		c.forgetLocked(dir)
		return
	}
	c.touched++
	c.m[dir] = cachedAttr{attr: derive(e.attr), expires: e.expires, stored: e.stored, touched: c.touched}
}

// entryCache maps (directory, name) to an inode until it expires.
type entryCache struct {
	mu sync.Mutex
	m  map[entryKey]cachedEntry
	// dirs holds the directories whose names this client knows as a
	// whole for a while (made here, or listed), and counts the look-ups
	// that find names missing in others (client_dirwindow.go).
	dirs map[Ino]*dirWindow
	// changes numbers what this client's changes stored (put, under mu),
	// so that a look-up's answer does not replace a change made after it
	// was asked (found); atomic, as every look-up reads it (asked).
	changes atomic.Uint64
}

type entryKey struct {
	parent Ino
	name   string
}

type cachedEntry struct {
	ino     Ino
	expires time.Time
	change  uint64 // entryCache.changes when a change stored it; 0: a look-up or a listing
}

func newEntryCache() *entryCache {
	return &entryCache{m: make(map[entryKey]cachedEntry), dirs: make(map[Ino]*dirWindow)}
}

// get returns the inode cached for parent/name (missingEntry for a name
// known missing) and until when it holds.
func (c *entryCache) get(parent Ino, name string) (Ino, bool) {
	ino, _, ok := c.getUntil(parent, name)
	return ino, ok
}

func (c *entryCache) getUntil(parent Ino, name string) (Ino, time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	k := entryKey{parent, name}
	if e, ok := c.m[k]; ok {
		if now.Before(e.expires) {
			return e.ino, e.expires, true
		}
		delete(c.m, k)
	}
	if w := c.dirs[parent]; w != nil && now.Before(w.until) {
		return missingEntry, w.until, true
	}
	return 0, time.Time{}, false
}

// put caches what this client's change left at parent/name.
func (c *entryCache) put(parent Ino, name string, ino Ino, ttl time.Duration) {
	if ttl <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.makeRoomLocked(1)
	c.m[entryKey{parent, name}] = cachedEntry{ino: ino, expires: time.Now().Add(ttl), change: c.changes.Add(1)}
	if w := c.dirs[parent]; w != nil {
		w.changed = true
		if ino != missingEntry {
			w.names++
		}
	}
}

// asked is the mark a look-up takes before it asks the engine, for found.
func (c *entryCache) asked() uint64 { return c.changes.Load() }

// found caches what a look-up, asked at mark asked, found at parent/name,
// unless a change of this client stored the name since: the look-up's
// answer may be older than that change. It is the engine's state, as a
// listing running meanwhile may hold it too, and does not make the
// listing stale (see relisted). With count, it counts towards listing
// parent (lookedUpLocked).
func (c *entryCache) found(parent Ino, name string, ino Ino, ttl time.Duration, asked uint64, count bool) {
	if ttl <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if count {
		c.lookedUpLocked(parent, ino == missingEntry)
	}
	k := entryKey{parent, name}
	if e, ok := c.m[k]; ok && e.change > asked {
		return
	}
	c.makeRoomLocked(1)
	c.m[k] = cachedEntry{ino: ino, expires: time.Now().Add(ttl)}
}

// putListed caches the names of a readdirplus page of directory parent
// that carry attributes, as put would one by one (each for ttlOf its
// attributes), under one lock and one clock reading.
func (c *entryCache) putListed(parent Ino, es []Entry, ttlOf func(*Attr) time.Duration) {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.makeRoomLocked(len(es))
	for i := range es {
		e := &es[i]
		if e.Attr == nil {
			continue
		}
		if ttl := ttlOf(e.Attr); ttl > 0 {
			c.m[entryKey{parent, e.Name}] = cachedEntry{ino: e.Ino, expires: now.Add(ttl)}
		}
	}
}

// makeRoomLocked empties the cache when n more would pass its bound.
func (c *entryCache) makeRoomLocked(n int) {
	if len(c.m)+n > 1<<20 {
		c.m = make(map[entryKey]cachedEntry)
		c.dirs = make(map[Ino]*dirWindow) // their names are no longer all here
	}
}

// drop forgets parent/name; parent's other names that are not cached are
// no longer known missing either, until a listing says again what they are.
func (c *entryCache) drop(parent Ino, name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, entryKey{parent, name})
	if w := c.dirs[parent]; w != nil {
		w.until = time.Time{}
		w.changed = true
	}
}

// madeEmpty notes that directory dir was made empty by this client no
// earlier than since: until since+ttl every name in it that the cache
// does not hold is missing, as a name a look-up found missing at since
// would be for ttl. That holds because every name this client puts in dir
// afterwards is cached for at least ttl (ttl is MissingEntryTTL, the
// shorter entry cache duration) and a name it cannot say what became of
// is dropped, which ends it.
func (c *entryCache) madeEmpty(dir Ino, since time.Time, ttl time.Duration) {
	if ttl <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.makeDirRoomLocked()
	c.dirs[dir] = &dirWindow{until: since.Add(ttl)}
}

// makeDirRoomLocked keeps the windows of directories bounded: past 1<<16
// it forgets those that ended more than a minute ago (the directory is
// no longer worked in, or is gone), and all of them when that leaves
// more than half.
func (c *entryCache) makeDirRoomLocked() {
	const most = 1 << 16
	if len(c.dirs) < most {
		return
	}
	old := time.Now().Add(-time.Minute)
	for ino, w := range c.dirs {
		if !w.listing && w.until.Before(old) {
			delete(c.dirs, ino)
		}
	}
	if len(c.dirs) > most/2 {
		c.dirs = make(map[Ino]*dirWindow)
	}
}

// missingEntry is the inode the entry cache holds for a name the engine
// said was missing.
const missingEntry Ino = 0

// MissingEntryTTL is how long a name found missing is kept as missing:
// the shorter entry cache duration, since the name may come back as a
// file or a directory. This client's own creates replace the entry at
// once; another client's become visible within this time, as its
// changes of existing names do within the entry cache durations.
func (c *Client) MissingEntryTTL() time.Duration {
	return min(c.cfg.EntryTimeout, c.cfg.DirEntryTimeout)
}

// MissingFor is how long parent/name, which this client just answered as
// missing, may still be taken as missing: what is left of the time it is
// cached as missing, so that the kernel keeps it no longer than the
// client would (MissingEntryTTL when it is not cached).
func (c *Client) MissingFor(parent Ino, name string) time.Duration {
	ino, until, ok := c.entries.getUntil(parent, name)
	if !ok || ino != missingEntry {
		return c.MissingEntryTTL()
	}
	return max(time.Until(until), 0)
}

// The entry cache's rules, in one place: what the engine said of a name
// or what this client's change of it left there. A name holds an inode
// (nameIs; nameFound when a look-up says so) for the entry cache duration
// of its type; a name that this client's removal or move just took away
// (nameGone), or that a look-up found missing (nameNotFound), is kept as
// missing for MissingEntryTTL, so that a look-up of it (the kernel sends
// one before every create, and again after a removal) is answered without
// the engine, and so is every name of a directory this client just made
// (dirMade) or listed again (relistIfDue); a name whose state a failed
// change or a partial answer leaves unknown is forgotten (nameUnsure),
// to be looked up again.

func (c *Client) nameIs(parent Ino, name string, ino Ino, a *Attr) {
	c.entries.put(parent, name, ino, c.entryTTL(a))
}

func (c *Client) nameGone(parent Ino, name string) {
	c.entries.put(parent, name, missingEntry, c.MissingEntryTTL())
}

// nameFound counts towards a listing with attributes only when its
// names and attributes would be kept (relisted, attrCache.putListed).
func (c *Client) nameFound(parent Ino, name string, ino Ino, a *Attr, asked uint64) {
	c.entries.found(parent, name, ino, c.entryTTL(a), asked, c.MissingEntryTTL() > 0 && c.cfg.AttrTimeout > 0)
}

func (c *Client) nameNotFound(parent Ino, name string, asked uint64) {
	c.entries.found(parent, name, missingEntry, c.MissingEntryTTL(), asked, true)
}

func (c *Client) nameUnsure(parent Ino, name string) { c.entries.drop(parent, name) }

// renamedNames is what a successful rename of moved left at its two
// names: the destination holds moved and the source is gone, unless the
// move was an exchange (both hold an inode, the source the one that was
// at the destination) or moved is a file with other links (a rename
// between two links of one file leaves both), whose source is forgotten.
// Knowing both keeps what the client knows of the directories' other
// names (a move into a directory it made does not cost the next
// create's look-up a round trip).
func (c *Client) renamedNames(srcParent Ino, srcName string, dstParent Ino, dstName string, flags uint32, moved Ino, a *Attr) {
	switch {
	case flags&RenameExchange != 0:
		c.nameUnsure(srcParent, srcName)
		c.nameUnsure(dstParent, dstName)
		return
	case a.IsDir() || a.Nlink == 1:
		c.nameGone(srcParent, srcName)
	default:
		c.nameUnsure(srcParent, srcName)
	}
	c.nameIs(dstParent, dstName, moved, a)
}

// dirMade notes that directory dir, which a Mknod sent at since made,
// starts empty.
func (c *Client) dirMade(dir Ino, since time.Time) {
	c.entries.madeEmpty(dir, since, c.MissingEntryTTL())
}

// entryTTL is how long the entry for an inode of attributes a may be cached.
func (c *Client) entryTTL(a *Attr) time.Duration {
	if a.IsDir() {
		return c.cfg.DirEntryTimeout
	}
	return c.cfg.EntryTimeout
}

// remember caches what an engine call returned about ino.
func (c *Client) remember(ino Ino, a Attr) {
	c.attrs.put(ino, a, c.cfg.AttrTimeout)
	c.stats.saw(ino, &a)
}
