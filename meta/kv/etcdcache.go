package kv

import (
	"context"
	"errors"
	"sync"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Speculative commits. An operation on etcd costs a read and a commit. But
// a client mostly works on keys it has just read or written itself, so the
// store keeps the last value and mod revision it saw of each key, runs the
// operation on those, and sends the commit straight away with the same
// compares as ever: every key read must still have the revision the cache
// holds (keys the cache does not know are taken as missing, revision 0).
// If the compares hold, the operation took one request and is exactly as
// safe as one that read first. If they fail, the same request returns the
// current values of those keys, and the operation runs again on them — two
// requests, as without the cache. Whatever an operation concludes from
// cached values is thrown away unless its commit succeeds: an error, or a
// read-only operation, runs again on values read from the cluster.

var errNoSpeculation = errors.New("etcd: scan needs values read from the cluster")

// cachedValue is a key's value at mod revision rev; nil value and rev 0 for
// a missing key.
type cachedValue struct {
	value []byte
	rev   int64
}

func rangeValue(r *etcdserverpb.RangeResponse) cachedValue {
	if r == nil || len(r.Kvs) == 0 {
		return cachedValue{}
	}
	v := r.Kvs[0].Value
	if v == nil {
		v = []byte{}
	}
	return cachedValue{v, r.Kvs[0].ModRevision}
}

// etcdCache is bounded in bytes by emptying it when it is full, and keeps
// no large values; it only ever saves requests, so forgetting is safe.
type etcdCache struct {
	mu     sync.Mutex
	m      map[string]cachedValue
	bytes  int
	max    int
	ranges rangeFacts // see etcdranges.go
}

// etcdCacheValueMax is the largest value worth caching (attributes,
// entries, counters, short slice lists are far smaller).
const etcdCacheValueMax = 16 << 10

func newEtcdCache(maxBytes int) *etcdCache {
	return &etcdCache{m: map[string]cachedValue{}, max: maxBytes}
}

func (c *etcdCache) get(k string) (cachedValue, bool) {
	if c == nil {
		return cachedValue{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	if v.value != nil {
		v.value = append([]byte{}, v.value...) // callers own what they read
	}
	return v, ok
}

func (c *etcdCache) put(k string, v cachedValue) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.m[k]
	if ok && old.rev > v.rev && v.rev != 0 {
		return // a later revision is already known
	}
	if ok {
		c.bytes -= len(k) + len(old.value)
		delete(c.m, k)
	}
	if len(v.value) > etcdCacheValueMax {
		return
	}
	if c.bytes+len(k)+len(v.value) > c.max {
		clear(c.m)
		c.bytes = 0
	}
	c.m[k] = v
	c.bytes += len(k) + len(v.value)
}

func (c *etcdCache) drop(k string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	if old, ok := c.m[k]; ok {
		c.bytes -= len(k) + len(old.value)
		delete(c.m, k)
	}
	c.mu.Unlock()
}

// speculate runs fn on cached values and commits. It returns a nil tx when
// that settled the transaction (err is its result), or the transaction to
// run fn on for real, preloaded with the current values a failed commit
// brought back.
func (s *EtcdStore) speculate(ctx context.Context, fn func(tx Tx) error) (*etcdTx, error) {
	tx := s.newTx(ctx)
	tx.spec = true
	if err := fn(tx); err != nil || (len(tx.writes) == 0 && len(tx.deletes) == 0) {
		return s.prefetched(ctx, tx)
	}
	resp, err := tx.commit()
	if err == nil {
		return nil, nil
	}
	if resp == nil {
		return nil, err // the cluster failed, not the compares
	}
	next := s.newTx(ctx)
	next.rev = resp.Header.Revision
	next.preload = map[string]cachedValue{}
	for _, r := range resp.Responses {
		rr := r.GetResponseRange()
		if rr == nil {
			continue
		}
		for _, kv := range rr.Kvs {
			next.preload[string(kv.Key)] = cachedValue{kv.Value, kv.ModRevision}
		}
	}
	// Keys the Else part found missing: preloaded as missing too.
	for k := range tx.reads {
		c, ok := next.preload[k]
		if !ok {
			c = cachedValue{}
		} else if c.value == nil {
			c.value = []byte{}
		}
		next.preload[k] = c
		s.cache.put(k, c)
	}
	return next, nil
}

// prefetched is the transaction to run an operation on for real when its
// run on cached values proves nothing (a read, an error, or a Scan, which
// the cache cannot answer): the keys that run read, and the first page of
// the first ranges it wanted to scan (as many as fit), are read from the
// cluster first, together in one request at one revision. An operation
// whose reads depend on each other (an entry, then its inode; an orphan's
// marker, then its keys) so costs one request for its reads when the cache
// guessed them right; what the guess missed is read as usual, at the same
// revision.
func (s *EtcdStore) prefetched(ctx context.Context, spec *etcdTx) (*etcdTx, error) {
	next := s.newTx(ctx)
	keys := make([]string, 0, len(spec.reads))
	for k := range spec.reads {
		keys = append(keys, k)
	}
	if len(keys) > etcdMaxTxnOps {
		return next, nil // a rare operation: its reads go as usual
	}
	scans := spec.scansWanted[:min(len(spec.scansWanted), etcdMaxTxnOps-len(keys))]
	if len(keys) == 0 && len(scans) == 0 {
		return next, nil
	}
	ops := make([]clientv3.Op, 0, len(keys)+len(scans))
	for _, k := range keys {
		ops = append(ops, clientv3.OpGet(k))
	}
	for _, scan := range scans {
		page := etcdPage
		if scan.limit > 0 {
			page = min(page, scan.limit)
		}
		ops = append(ops, clientv3.OpGet(scan.begin, clientv3.WithRange(scan.end), clientv3.WithLimit(int64(page))))
	}
	var resp *clientv3.TxnResponse
	err := s.call(ctx, true, func(ctx context.Context) (err error) {
		resp, err = s.cli.Txn(ctx).Then(ops...).Commit()
		return err
	})
	if err != nil {
		return nil, err
	}
	next.noteRev(resp.Header.Revision)
	next.preload = make(map[string]cachedValue, len(keys))
	for j, k := range keys {
		c := rangeValue(resp.Responses[j].GetResponseRange())
		next.preload[k] = c
		s.cache.put(k, c)
	}
	for j, scan := range scans {
		page := (*clientv3.GetResponse)(resp.Responses[len(keys)+j].GetResponseRange())
		next.prescans = append(next.prescans, prescanned{scanRange: scan, resp: page})
	}
	return next, nil
}

// scanRange is a Scan's arguments.
type scanRange struct {
	begin, end string
	limit      int
}

// prescanned is the first page of a Scan, read ahead by prefetched.
type prescanned struct {
	scanRange
	resp *clientv3.GetResponse
}

// takePrescan returns, once, the page prefetched for the first request of
// a Scan of [from, end) with limit, when that is one read ahead.
func (t *etcdTx) takePrescan(from, end string, limit, have int) *clientv3.GetResponse {
	if have != 0 {
		return nil
	}
	for i, p := range t.prescans {
		if p.begin == from && p.end == end && p.limit == limit && p.resp != nil {
			t.prescans = append(t.prescans[:i], t.prescans[i+1:]...)
			return p.resp
		}
	}
	return nil
}
