package kv

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"cairn/meta"
)

// etcd's default limits: operations (and compares) per transaction, and
// bytes per request. A transaction that would exceed them fails with a
// clear error instead of being sent.
const (
	etcdMaxTxnOps      = 128
	etcdMaxRequest     = 1536 << 10
	etcdPage           = 512
	etcdRequestTimeout = 3 * time.Second
	etcdRetryWindow    = 5 * time.Second
	// etcdCommitTimeout is how long a commit waits for its answer. A
	// member gives up on a proposal it could not commit after its own
	// request timeout (5 s plus two election timeouts: 7 s by default)
	// and says so; until then a slow commit (a member's disk that stalls
	// on fsync) is only slow, and cutting it short would turn it into an
	// operation of unknown outcome, EIO to the application, while etcd
	// goes on to apply it.
	etcdCommitTimeout = 10 * time.Second
)

// EtcdStore is a volume in an etcd v3 cluster. A transaction reads at one
// revision (the first read's) and commits as one compare-and-swap: every
// key it read must still have the revision it saw, and no key in a range
// it scanned may be newer than that revision. So an operation costs its
// reads (usually one request) plus one commit.
type EtcdStore struct {
	cli      *clientv3.Client
	requests atomic.Uint64
	cache    *etcdCache // nil: no speculative commits
	mark     string     // the key every commit puts its mark in (etcdsettle.go); "": none
	// commitTimeout is etcdCommitTimeout, shorter in tests.
	commitTimeout time.Duration
	// settled counts the settlements of lost answers by outcome.
	settled [3]atomic.Uint64
}

var _ Store = (*EtcdStore)(nil)

func (s *EtcdStore) Name() string       { return "etcd" }
func (s *EtcdStore) RoundTrips() uint64 { return s.requests.Load() }
func (s *EtcdStore) Close() error       { return s.cli.Close() }

func (s *EtcdStore) newTx(ctx context.Context) *etcdTx {
	return &etcdTx{s: s, ctx: ctx, reads: map[string]int64{}, writes: map[string][]byte{}, deletes: map[string]bool{}}
}

// Txn implements Store. With the cache on, fn first runs on cached values
// and commits in one request if they were current (see etcdcache.go);
// otherwise it runs again on values read from the cluster.
func (s *EtcdStore) Txn(ctx context.Context, fn func(tx Tx) error) error {
	tx := s.newTx(ctx)
	if s.cache != nil {
		var err error
		tx, err = s.speculate(ctx, fn)
		if tx == nil {
			return err
		}
	}
	if err := fn(tx); err != nil {
		return err
	}
	_, err := tx.commit()
	return err
}

// call runs one request with the per-request timeout (a read's short one,
// retried; a commit's long enough for the cluster's own verdict; longer
// for bulk requests, see withBulk), counts it and turns
// the errors that mean "no cluster" into one clear message. A request that
// surely did not run (no leader) is retried for a few seconds, so that a
// leader election passes unnoticed; so is a read that failed in any
// transient way. A commit that may have run is not retried.
func (s *EtcdStore) call(ctx context.Context, idempotent bool, f func(ctx context.Context) error) error {
	timeout, window := etcdRequestTimeout, etcdRetryWindow
	if !idempotent {
		timeout = cmp.Or(s.commitTimeout, etcdCommitTimeout)
	}
	if isBulk(ctx) {
		timeout, window = bulkRequestTimeout, bulkRetryWindow
	}
	deadline := time.Now().Add(window)
	for attempt := 1; ; attempt++ {
		s.requests.Add(1)
		rctx, cancel := context.WithTimeout(clientv3.WithRequireLeader(ctx), timeout)
		err := f(rctx)
		timedOut := rctx.Err() != nil
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, rpctypes.ErrCompacted) || errors.Is(err, rpctypes.ErrFutureRev) {
			return fmt.Errorf("etcd: revision gone: %w", ErrTxnConflict)
		}
		noLeader := errors.Is(err, rpctypes.ErrNoLeader) || errors.Is(err, rpctypes.ErrGRPCNoLeader)
		// A member that lost its quorum may answer a read it could not
		// confirm with its own timeout, as an error of unknown code.
		serverTimeout := status.Code(err) == codes.Unknown && status.Convert(err).Message() == context.DeadlineExceeded.Error()
		transient := noLeader || timedOut || serverTimeout || errors.Is(err, context.DeadlineExceeded) ||
			errors.Is(err, rpctypes.ErrTimeout) || errors.Is(err, rpctypes.ErrTimeoutDueToLeaderFail) ||
			errors.Is(err, rpctypes.ErrTimeoutDueToConnectionLost) || errors.Is(err, rpctypes.ErrLeaderChanged) ||
			status.Code(err) == codes.Unavailable || status.Code(err) == codes.DeadlineExceeded
		if !transient {
			return fmt.Errorf("etcd: %w", err)
		}
		if (noLeader || idempotent) && time.Now().Before(deadline) {
			time.Sleep(time.Duration(attempt) * 50 * time.Millisecond)
			continue
		}
		// Without a leader the request was not carried out; after a
		// timeout it may still be.
		gone, why := meta.ErrUnavailable, "unavailable (quorum lost or no member reachable; check that a majority of members is up)"
		switch {
		case noLeader:
			gone = meta.ErrUnreachable
		case timedOut || serverTimeout || errors.Is(err, rpctypes.ErrTimeout) || errors.Is(err, rpctypes.ErrTimeoutDueToLeaderFail):
			why = "did not answer in time (a disk that stalls, a member overloaded, the network to it down, or a quorum lost)"
		}
		return fmt.Errorf("etcd cluster %s %s: %w (%w)", strings.Join(s.cli.Endpoints(), ","), why, err, gone)
	}
}

// etcdTx buffers writes and remembers what it read for the commit's
// compares.
type etcdTx struct {
	s       *EtcdStore
	ctx     context.Context
	mu      sync.Mutex       // guards rev and reads during parallel reads
	rev     int64            // revision all reads see; 0 before the first
	reads   map[string]int64 // key -> mod revision seen (0: missing)
	ranges  []scannedRange   // scanned ranges
	writes  map[string][]byte
	deletes map[string]bool
	// spec: reads come from the cache, and a Scan gives up; preload: values
	// a failed speculative commit returned, at revision rev.
	spec    bool
	preload map[string]cachedValue
	// scansWanted are the first scans a speculative run asked for (one
	// Scan, or one ScanMany's ranges); prescans their first pages, read
	// with the prefetched keys (see prefetched).
	scansWanted []scanRange
	prescans    []prescanned
	// fresh: ranges the transaction says held no key before it (see
	// FreshRange); factsUsed: the known ranges its Scans answered from.
	fresh     []rangeFact
	factsUsed []string
	// snapshot: a read-only scan of one revision (a dump), which commits
	// nothing, so it keeps no read set and fills no cache; both would
	// grow with the volume.
	snapshot bool
}

// saw records a read for the commit's compares and the shared cache.
func (t *etcdTx) saw(key string, c cachedValue) {
	if t.snapshot {
		return
	}
	t.reads[key] = c.rev
	t.s.cache.put(key, c)
}

func (t *etcdTx) readOpts() []clientv3.OpOption {
	if t.rev == 0 {
		return nil
	}
	return []clientv3.OpOption{clientv3.WithRev(t.rev)}
}

func (t *etcdTx) noteRev(rev int64) {
	if t.rev == 0 {
		t.rev = rev
	}
}

func (t *etcdTx) Get(key []byte) ([]byte, error) {
	vs, err := t.BatchGet([][]byte{key})
	if err != nil {
		return nil, err
	}
	return vs[0], nil
}

// BatchGet reads up to etcd's operation limit per request; more keys go
// in several requests at the same revision, sent at once.
func (t *etcdTx) BatchGet(keys [][]byte) ([][]byte, error) {
	out := make([][]byte, len(keys))
	var idx []int
	for i, k := range keys {
		if v, ok := t.writes[string(k)]; ok {
			out[i] = append([]byte{}, v...)
		} else if t.deletes[string(k)] {
			continue
		} else if c, ok := t.preload[string(k)]; ok {
			out[i], t.reads[string(k)] = c.value, c.rev
		} else if t.spec {
			c, _ := t.s.cache.get(string(k)) // unknown keys are taken as missing
			out[i], t.reads[string(k)] = c.value, c.rev
		} else {
			idx = append(idx, i)
		}
	}
	var batches [][]int
	for len(idx) > 0 {
		n := min(len(idx), etcdMaxTxnOps)
		batches = append(batches, idx[:n])
		idx = idx[n:]
	}
	if len(batches) == 0 {
		return out, nil
	}
	if t.rev == 0 {
		// The first request fixes the revision every later read sees.
		if err := t.getBatch(keys, batches[0], out); err != nil {
			return nil, err
		}
		batches = batches[1:]
	}
	errs := make([]error, len(batches))
	var wg sync.WaitGroup
	for i, b := range batches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = t.getBatch(keys, b, out)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// getBatch reads keys[i] for i in batch into out[i] in one request.
func (t *etcdTx) getBatch(keys [][]byte, batch []int, out [][]byte) error {
	t.mu.Lock()
	opts := t.readOpts()
	t.mu.Unlock()
	ops := make([]clientv3.Op, len(batch))
	for j, i := range batch {
		ops[j] = clientv3.OpGet(string(keys[i]), opts...)
	}
	var resp *clientv3.TxnResponse
	err := t.s.call(t.ctx, true, func(ctx context.Context) (err error) {
		resp, err = t.s.cli.Txn(ctx).Then(ops...).Commit()
		return err
	})
	if err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.noteRev(resp.Header.Revision)
	for j, i := range batch {
		c := rangeValue(resp.Responses[j].GetResponseRange())
		out[i] = c.value
		t.saw(string(keys[i]), c)
	}
	return nil
}

func (t *etcdTx) Scan(begin, end []byte, limit int) ([]KeyValue, error) {
	if t.spec {
		if out, ok := t.scanKnown(string(begin), string(end), limit); ok {
			return out, nil
		}
		if len(t.scansWanted) == 0 {
			t.scansWanted = []scanRange{{begin: string(begin), end: string(end), limit: limit}}
		}
		return nil, errNoSpeculation
	}
	var out []KeyValue
	from := string(begin)
	for {
		page := etcdPage
		if limit > 0 {
			page = min(page, limit-len(out))
		}
		resp := t.takePrescan(from, string(end), limit, len(out))
		if resp == nil {
			err := t.s.call(t.ctx, true, func(ctx context.Context) (err error) {
				opts := append(t.readOpts(), clientv3.WithRange(string(end)), clientv3.WithLimit(int64(page)))
				resp, err = t.s.cli.Get(ctx, from, opts...)
				return err
			})
			if err != nil {
				return nil, err
			}
			t.noteRev(resp.Header.Revision)
		}
		out = t.appendPage(out, resp)
		if !resp.More || (limit > 0 && len(out) >= limit) {
			t.noteScanned(begin, end, out, resp.More)
			return out, nil
		}
		from = string(after(resp.Kvs[len(resp.Kvs)-1].Key))
	}
}

// appendPage appends the pairs of one page to out, each noted for the
// commit's compares.
func (t *etcdTx) appendPage(out []KeyValue, page *clientv3.GetResponse) []KeyValue {
	for _, kv := range page.Kvs {
		v := kv.Value
		if v == nil {
			v = []byte{}
		}
		t.saw(string(kv.Key), cachedValue{v, kv.ModRevision})
		out = append(out, KeyValue{Key: kv.Key, Value: v})
	}
	return out
}

// noteScanned records, for the commit's compares, that the range from
// begin was read to end, or, when more remained, to the last key of out.
func (t *etcdTx) noteScanned(begin, end []byte, out []KeyValue, more bool) {
	if t.snapshot {
		return
	}
	scanned := string(end)
	if more {
		scanned = string(after(out[len(out)-1].Key))
	}
	t.ranges = append(t.ranges, scannedRange{begin: string(begin), end: scanned, rev: t.rev})
}

// scannedRange is a range read to end at revision rev: at the commit, no
// key in it may be newer.
type scannedRange struct {
	begin, end string
	rev        int64
}

func (t *etcdTx) Put(key, value []byte) {
	delete(t.deletes, string(key))
	t.writes[string(key)] = append([]byte{}, value...)
}

func (t *etcdTx) Delete(key []byte) {
	delete(t.writes, string(key))
	t.deletes[string(key)] = true
}

// commit sends the writes with the compares that make them safe. It
// returns the response also when the compares failed, whose Else part
// holds the current values of the keys read (for the speculative path).
func (t *etcdTx) commit() (*clientv3.TxnResponse, error) {
	if len(t.writes) == 0 && len(t.deletes) == 0 {
		return nil, nil
	}
	var cmps []clientv3.Cmp
	var reread []clientv3.Op
	size := 0
	for k, rev := range t.reads {
		cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(k), "=", rev))
		if t.spec {
			reread = append(reread, clientv3.OpGet(k))
		}
		size += len(k) + 16
	}
	for _, r := range t.ranges {
		cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(r.begin), "<", r.rev+1).WithRange(r.end))
		size += len(r.begin) + len(r.end) + 16
	}
	for _, r := range t.fresh {
		cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(r.begin), "<", 1).WithRange(r.end))
		size += len(r.begin) + len(r.end) + 16
	}
	carried := t.carryFacts(etcdMaxTxnOps - len(cmps))
	for _, f := range carried {
		cmps = append(cmps, factCompares(f)...)
		size += (len(f.keys) + 1) * (len(f.begin) + 16)
	}
	var ops []clientv3.Op
	for k, v := range t.writes {
		ops = append(ops, clientv3.OpPut(k, string(v)))
		size += len(k) + len(v) + 16
	}
	for k := range t.deletes {
		ops = append(ops, clientv3.OpDelete(k))
		size += len(k) + 16
	}
	// The commit's mark: should its answer be lost, the proof that a
	// revision is this commit's (etcdsettle.go).
	var mark []byte
	witness, _ := t.witness() // none: nothing to settle by
	_, putsMark := t.writes[t.s.mark]
	markSize := len(t.s.mark) + 16 + 16
	if t.s.mark != "" && witness != "" && len(ops) < etcdMaxTxnOps && size+markSize <= etcdMaxRequest && !isBulk(t.ctx) && !putsMark && !t.deletes[t.s.mark] {
		mark = newMark()
		ops = append(ops, clientv3.OpPut(t.s.mark, string(mark)))
		size += markSize
	}
	if len(cmps) > etcdMaxTxnOps || len(ops) > etcdMaxTxnOps {
		return nil, fmt.Errorf("etcd transaction too large: %d compares and %d writes, etcd allows %d each", len(cmps), len(ops), etcdMaxTxnOps)
	}
	if size > etcdMaxRequest {
		return nil, fmt.Errorf("etcd transaction too large: about %d bytes, etcd accepts %d per request", size, etcdMaxRequest)
	}
	var resp *clientv3.TxnResponse
	err := t.s.call(t.ctx, false, func(ctx context.Context) (err error) {
		resp, err = t.s.cli.Txn(ctx).If(cmps...).Then(ops...).Else(reread...).Commit()
		return err
	})
	if err != nil || !resp.Succeeded {
		for _, begin := range t.factsUsed {
			t.s.cache.forgetRangeOf(begin)
		}
		for _, f := range carried {
			t.s.cache.forgetRangeOf(f.begin)
		}
	}
	if err != nil {
		for k := range t.reads {
			t.s.cache.drop(k)
		}
		if !errors.Is(err, meta.ErrUnavailable) || isBulk(t.ctx) {
			return nil, err
		}
		// The answer was lost: the commit may or may not have happened.
		outcome := t.settle(mark)
		t.s.settled[outcome].Add(1)
		switch outcome {
		case outcomeApplied:
			for k := range t.writes {
				t.s.cache.drop(k)
				t.s.cache.forgetRangeOf(k)
			}
			for k := range t.deletes {
				t.s.cache.drop(k)
				t.s.cache.forgetRangeOf(k)
			}
			return nil, nil
		case outcomeNotApplied:
			return nil, fmt.Errorf("etcd: a commit whose answer was lost did not take effect: %w", ErrTxnConflict)
		}
		return nil, err
	}
	if !resp.Succeeded {
		return resp, fmt.Errorf("etcd: keys changed since revision %d: %w", t.rev, ErrTxnConflict)
	}
	for k, v := range t.writes {
		t.s.cache.put(k, cachedValue{v, resp.Header.Revision})
		if !holding(carried, k) {
			t.s.cache.forgetRangeOf(k)
		}
	}
	for k := range t.deletes {
		t.s.cache.put(k, cachedValue{nil, 0})
		if !holding(carried, k) {
			t.s.cache.forgetRangeOf(k)
		}
	}
	t.learn(append(carried, t.fresh...), resp.Header.Revision)
	return resp, nil
}
