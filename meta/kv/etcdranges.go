package kv

import (
	"slices"
	"sort"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Known ranges. A speculative run cannot answer a Scan from cached keys:
// the cache does not know which keys of a range it has never seen. But
// a client often scans a range whose whole content it wrote itself: the
// keys of an inode it created, scanned again when it removes the inode
// (an rmdir checks that the directory holds no entry, an unlink deletes
// the file's keys). So the cache also keeps such ranges' content, learnt
// from a commit that proved the range empty before it (FreshRange) and
// kept across commits that carry it (carryFacts). A
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

// holds reports whether key lies in the fact's range.
func (f rangeFact) holds(key string) bool { return key >= f.begin && key < f.end }

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
		if part.holds(k) {
			part.keys = append(part.keys, k)
			part.revs = append(part.revs, whole.revs[j])
		}
	}
	return part, true
}

// rangeHolding returns the fact about the range that holds key.
func (c *etcdCache) rangeHolding(key string) (rangeFact, bool) {
	if c == nil {
		return rangeFact{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	i := c.ranges.at(key)
	if i < 0 {
		return rangeFact{}, false
	}
	return c.ranges[i], true
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
		t.fresh = append(t.fresh, rangeFact{begin: string(begin), end: string(end)})
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
	out, ok := t.s.cache.content(fact)
	if !ok {
		t.s.cache.forgetRangeOf(begin)
		return nil, false
	}
	for i, k := range fact.keys {
		t.reads[k] = fact.revs[i]
	}
	t.ranges = append(t.ranges, scannedRange{begin: begin, end: end, rev: fact.rev})
	t.factsUsed = append(t.factsUsed, begin)
	return out, true
}

// carriedFactKeys bounds the keys of a known range a transaction that
// writes into it carries: each is one more compare of its commit.
const carriedFactKeys = 8

// carryFacts returns the known ranges the transaction writes into, when
// they are small and still agree with the key cache: its commit compares
// them as a Scan of them would, so that after it the cache knows their
// content still (an inode's keys across a write of its data, a
// directory's across the creation and removal of its entries). Other
// known ranges it writes into are forgotten. Ranges it says are fresh
// are learnt as fresh ones. The carried facts' compares stay within
// budget.
func (t *etcdTx) carryFacts(budget int) []rangeFact {
	var out []rangeFact
	var seen map[string]bool // made for the first fact: most commits meet none
	consider := func(k string) {
		if holding(t.fresh, k) {
			return
		}
		f, ok := t.s.cache.rangeHolding(k)
		if !ok || seen[f.begin] {
			return
		}
		if seen == nil {
			seen = map[string]bool{}
		}
		seen[f.begin] = true
		keep := len(f.keys) <= carriedFactKeys && len(f.keys)+1 <= budget && !t.empties(f)
		if keep {
			_, keep = t.s.cache.content(f) // still what the key cache holds
		}
		if !keep {
			t.s.cache.forgetRangeOf(f.begin)
			return
		}
		budget -= len(f.keys) + 1
		out = append(out, f)
	}
	for k := range t.writes {
		consider(k)
	}
	for k := range t.deletes {
		consider(k)
	}
	return out
}

// empties reports whether the transaction deletes every key of fact's
// range that it does not write (an inode it deletes): nothing worth
// knowing is left of it.
func (t *etcdTx) empties(fact rangeFact) bool {
	for _, k := range fact.keys {
		if !t.deletes[k] {
			return false
		}
	}
	for k := range t.writes {
		if fact.holds(k) {
			return false
		}
	}
	return true
}

// content is the pairs of fact's keys from the key cache, when every one
// is there at the revision the fact holds.
func (c *etcdCache) content(fact rangeFact) ([]KeyValue, bool) {
	out := make([]KeyValue, 0, len(fact.keys))
	for i, k := range fact.keys {
		v, ok := c.get(k)
		if !ok || v.value == nil || v.rev != fact.revs[i] {
			return nil, false
		}
		out = append(out, KeyValue{Key: []byte(k), Value: v.value})
	}
	return out, true
}

// factCompares are the compares that hold when fact still says its
// range's content: no key of the range newer than the fact, and each of
// its keys at its revision (none deleted).
func factCompares(fact rangeFact) []clientv3.Cmp {
	cmps := []clientv3.Cmp{clientv3.Compare(clientv3.ModRevision(fact.begin), "<", fact.rev+1).WithRange(fact.end)}
	for i, k := range fact.keys {
		cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(k), "=", fact.revs[i]))
	}
	return cmps
}

// learn records, after a commit at rev whose compares proved facts (the
// ranges it carried, and those it said were fresh, empty facts), their
// ranges' content after it: what they held, less the keys the
// transaction deleted, with the keys it wrote at rev.
func (t *etcdTx) learn(facts []rangeFact, rev int64) {
	for _, f := range facts {
		at := map[string]int64{}
		for i, k := range f.keys {
			at[k] = f.revs[i]
		}
		for k := range t.deletes {
			if f.holds(k) {
				delete(at, k)
			}
		}
		for k := range t.writes {
			if f.holds(k) {
				at[k] = rev
			}
		}
		next := rangeFact{begin: f.begin, end: f.end, rev: rev}
		for k := range at {
			next.keys = append(next.keys, k)
		}
		slices.Sort(next.keys)
		for _, k := range next.keys {
			next.revs = append(next.revs, at[k])
		}
		t.s.cache.learnRange(next)
	}
}

// holding reports whether key lies in one of the facts' ranges.
func holding(facts []rangeFact, key string) bool {
	for _, f := range facts {
		if f.holds(key) {
			return true
		}
	}
	return false
}
