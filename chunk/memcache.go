package chunk

import (
	"container/list"
	"sync"
)

// memCache keeps the plain data of recently read blocks, least recently
// used first out, within a byte limit. Blocks are immutable, so a cached
// block never goes stale; it only goes away with Remove. The cache holds a
// reference on each block it keeps (blockData).
type memCache struct {
	mu    sync.Mutex
	limit int64
	used  int64
	lru   *list.List // front: most recent; values *memEntry
	items map[string]*list.Element
}

type memEntry struct {
	key  string
	data *blockData
}

func newMemCache(limit int64) *memCache {
	return &memCache{limit: limit, lru: list.New(), items: make(map[string]*list.Element)}
}

// get returns the block with a reference the caller must release.
func (c *memCache) get(key string) (*blockData, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(el)
	d := el.Value.(*memEntry).data
	d.hold()
	return d, true
}

func (c *memCache) contains(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.items[key]
	return ok
}

// put keeps data, taking a reference of its own.
func (c *memCache) put(key string, data *blockData) {
	if int64(len(data.bytes)) > c.limit {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.lru.MoveToFront(el)
		return
	}
	data.hold()
	c.items[key] = c.lru.PushFront(&memEntry{key, data})
	c.used += int64(len(data.bytes))
	for c.used > c.limit {
		c.drop(c.lru.Back())
	}
}

// demote marks a block as the first to go: a sequential reader has moved
// past it, and it must not push out the blocks read ahead of that reader.
func (c *memCache) demote(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.lru.MoveToBack(el)
	}
}

func (c *memCache) remove(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.drop(el)
	}
}

func (c *memCache) drop(el *list.Element) {
	e := el.Value.(*memEntry)
	c.lru.Remove(el)
	delete(c.items, e.key)
	c.used -= int64(len(e.data.bytes))
	e.data.release()
}
