package kv

import (
	"slices"
	"sort"
	"strings"
)

// Known ranges. A speculative run cannot answer a Scan from cached keys:
// the cache does not know which keys of a range it has never seen. But
// a client often scans a range whose whole content it wrote itself: the
// keys of an inode it created, scanned again when it removes the inode
// (an rmdir checks that the directory holds no entry, an unlink deletes
// the file's keys). So the cache also keeps such ranges' content, learnt
// from a commit that proved the range empty before it (FreshRange). A
// speculative Scan within that range answers from it and commits
// with the same compares as a Scan read from the cluster: each key still
// at its revision (none deleted or changed) and no key of the range newer
// than the content's revision (none added). Whatever changed, the commit
// fails and the operation runs again on values read from the cluster, so
// a wrong or stale fact costs a request, never correctness.

// rangeFact is the whole content of [begin, end) at revision rev: keys in
// order, each at revs[i]; their values are in the key cache.
type rangeFact struct {
	begin, end string
	rev        int64
	keys       []string
	revs       []int64
}

// rangeFactsMax bounds the facts kept (a fact is about a hundred bytes);
// like the key cache, the set is emptied when full.
const rangeFactsMax = 8192

// rangeFacts are non-overlapping facts in order of begin. Guarded by the
// etcdCache's mutex.
type rangeFacts []rangeFact

// at returns the index of the fact whose range holds key, or -1.
func (f rangeFacts) at(key string) int {
	i := sort.Search(len(f), func(i int) bool { return f[i].begin > key }) - 1
	if i >= 0 && key < f[i].end {
		return i
	}
	return -1
}

// learnRange records that [begin, end) held exactly keys (at revs) at
// revision rev, replacing what overlapped it.
func (c *etcdCache) learnRange(fact rangeFact) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	kept := c.ranges[:0]
	for _, old := range c.ranges {
		if old.end <= fact.begin || old.begin >= fact.end {
			kept = append(kept, old)
		}
	}
	c.ranges = kept
	if len(c.ranges) >= rangeFactsMax {
		c.ranges = nil
	}
	i, _ := slices.BinarySearchFunc(c.ranges, fact.begin, func(f rangeFact, b string) int { return strings.Compare(f.begin, b) })
	c.ranges = slices.Insert(c.ranges, i, fact)
}

// knownRange returns what a fact says of [begin, end): the content of
// that part of the fact's range, at the fact's revision.
func (c *etcdCache) knownRange(begin, end string) (rangeFact, bool) {
	if c == nil {
		return rangeFact{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	i := c.ranges.at(begin)
	if i < 0 || end > c.ranges[i].end {
		return rangeFact{}, false
	}
	whole := c.ranges[i]
	part := rangeFact{begin: begin, end: end, rev: whole.rev}
	for j, k := range whole.keys {
		if k >= begin && k < end {
			part.keys = append(part.keys, k)
			part.revs = append(part.revs, whole.revs[j])
		}
	}
	return part, true
}

// forgetRangeOf drops the fact about the range that holds key: this client
// changed the key, so the fact no longer says the range's content.
func (c *etcdCache) forgetRangeOf(key string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if i := c.ranges.at(key); i >= 0 {
		c.ranges = slices.Delete(c.ranges, i, i+1)
	}
}

// FreshRange tells the transaction that [begin, end) holds no key before
// it (the keys of an inode it creates). When it runs on cached values, it
// commits only if that is so, and the cache then knows the range's content;
// otherwise it changes nothing.
func (t *etcdTx) FreshRange(begin, end []byte) {
	if t.spec {
		t.fresh = append(t.fresh, scanRange{begin: string(begin), end: string(end)})
	}
}

// scanKnown answers a speculative Scan of a range whose content the cache
// knows (all of a known range or a part of it), noting each key and the
// range for the commit's compares.
func (t *etcdTx) scanKnown(begin, end string, limit int) ([]KeyValue, bool) {
	fact, ok := t.s.cache.knownRange(begin, end)
	if !ok || (limit > 0 && len(fact.keys) >= limit) {
		return nil, false
	}
	out := make([]KeyValue, 0, len(fact.keys))
	for i, k := range fact.keys {
		c, ok := t.s.cache.get(k)
		if !ok || c.value == nil || c.rev != fact.revs[i] {
			t.s.cache.forgetRangeOf(begin)
			return nil, false
		}
		out = append(out, KeyValue{Key: []byte(k), Value: c.value})
	}
	for i, k := range fact.keys {
		t.reads[k] = fact.revs[i]
	}
	t.ranges = append(t.ranges, scannedRange{begin: begin, end: end, rev: fact.rev})
	t.factsUsed = append(t.factsUsed, begin)
	return out, true
}

// learnFresh records, after a commit at rev, the content of the ranges
// the transaction proved empty before it: the keys it wrote there.
func (t *etcdTx) learnFresh(rev int64) {
	for _, r := range t.fresh {
		fact := rangeFact{begin: r.begin, end: r.end, rev: rev}
		for k := range t.writes {
			if k >= r.begin && k < r.end {
				fact.keys = append(fact.keys, k)
			}
		}
		slices.Sort(fact.keys)
		fact.revs = make([]int64, len(fact.keys))
		for i := range fact.revs {
			fact.revs[i] = rev
		}
		t.s.cache.learnRange(fact)
	}
}
