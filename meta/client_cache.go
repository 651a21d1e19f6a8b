package meta

import (
	"sync"
	"time"
)

// attrCache holds inode attributes until they expire.
type attrCache struct {
	mu sync.Mutex
	m  map[Ino]cachedAttr
}

type cachedAttr struct {
	attr    Attr
	expires time.Time
}

func newAttrCache() *attrCache { return &attrCache{m: make(map[Ino]cachedAttr)} }

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
	var expires time.Time
	if ttl > 0 {
		expires = time.Now().Add(ttl)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) > 1<<20 {
		c.m = make(map[Ino]cachedAttr)
	}
	c.m[ino] = cachedAttr{attr: a, expires: expires}
}

func (c *attrCache) drop(inos ...Ino) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ino := range inos {
		delete(c.m, ino)
	}
}

// entryCache maps (directory, name) to an inode until it expires.
type entryCache struct {
	mu sync.Mutex
	m  map[entryKey]cachedEntry
}

type entryKey struct {
	parent Ino
	name   string
}

type cachedEntry struct {
	ino     Ino
	expires time.Time
}

func newEntryCache() *entryCache { return &entryCache{m: make(map[entryKey]cachedEntry)} }

func (c *entryCache) get(parent Ino, name string) (Ino, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := entryKey{parent, name}
	e, ok := c.m[k]
	if !ok {
		return 0, false
	}
	if time.Now().After(e.expires) {
		delete(c.m, k)
		return 0, false
	}
	return e.ino, true
}

func (c *entryCache) put(parent Ino, name string, ino Ino, ttl time.Duration) {
	if ttl <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) > 1<<20 {
		c.m = make(map[entryKey]cachedEntry)
	}
	c.m[entryKey{parent, name}] = cachedEntry{ino: ino, expires: time.Now().Add(ttl)}
}

func (c *entryCache) drop(parent Ino, name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, entryKey{parent, name})
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
}
