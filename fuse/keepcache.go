package fuse

import (
	"sync"

	"cairn/meta"
)

// pageCache decides whether an open keeps what the kernel's page cache
// holds of a file (FOPEN_KEEP_CACHE). It remembers the version of every
// file at its last open through this mount: an open that finds the same
// length, mtime and ctime keeps the cache, so that a file read again and
// again is read from memory; any change, by this mount or another, drops
// it, as the kernel does by default.
type pageCache struct {
	mu   sync.Mutex
	seen map[meta.Ino]fileVersion
}

type fileVersion struct {
	length       uint64
	mtime, ctime int64
}

// maxSeen bounds the memory of pageCache; past it, it starts over (the
// next open of each file then drops its cache once).
const maxSeen = 1 << 16

// open records a's version and reports whether the page cache of the file
// may be kept.
func (c *pageCache) open(ino meta.Ino, a meta.Attr) bool {
	if a.Type != meta.TypeFile {
		return false
	}
	v := fileVersion{length: a.Length, mtime: a.Mtime, ctime: a.Ctime}
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.seen[ino]
	if c.seen == nil || len(c.seen) >= maxSeen {
		c.seen = make(map[meta.Ino]fileVersion)
	}
	c.seen[ino] = v
	return ok && old == v
}
