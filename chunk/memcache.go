package chunk

import (
	"container/list"
	"sync"
)

// memCache keeps the plain data of recently read blocks, least recently
// used first out, within a byte limit. Blocks are immutable, so a cached
// block never goes stale; it only goes away with Remove.
type memCache struct {
	mu    sync.Mutex
	limit int64
	used  int64
	lru   *list.List // front: most recent; values *memEntry
	items map[string]*list.Element
}

type memEntry struct {
	key  string
	data []byte
}

func newMemCache(limit int64) *memCache {
	return &memCache{limit: limit, lru: list.New(), items: make(map[string]*list.Element)}
}

func (c *memCache) get(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(el)
	return el.Value.(*memEntry).data, true
}

func (c *memCache) contains(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.items[key]
	return ok
}

func (c *memCache) put(key string, data []byte) {
	if int64(len(data)) > c.limit {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.lru.MoveToFront(el)
		return
	}
	c.items[key] = c.lru.PushFront(&memEntry{key, data})
	c.used += int64(len(data))
	for c.used > c.limit {
		el := c.lru.Back()
		e := el.Value.(*memEntry)
		c.lru.Remove(el)
		delete(c.items, e.key)
		c.used -= int64(len(e.data))
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
		c.lru.Remove(el)
		delete(c.items, key)
		c.used -= int64(len(el.Value.(*memEntry).data))
	}
}
