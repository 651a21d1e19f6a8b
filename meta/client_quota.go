package meta

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"time"
)

// QuotaRefresh is how often a Client reads the quotas' usage and limits
// again (see quota.go).
const QuotaRefresh = 3 * time.Second

// quotaState is a Client's view of the quotas: the records as last read,
// its own usage changes not yet written, and the directory parents it
// follows from a directory up to the quotas above it.
type quotaState struct {
	store QuotaStore // nil: no quotas (or no statistics to move them)

	mu       sync.Mutex
	quotas   map[Ino]Quota // as read, plus what this client wrote since; replaced, never changed in place
	readAt   time.Time
	pending  map[Ino]DirStat // usage changes not yet written
	inFlight map[Ino]DirStat // usage changes being written, or whose write failed (doubt)
	parents  map[Ino]Ino
	mark     FlushMark  // guarded by storeMu, as doubt
	doubt    *statBatch // a batch whose write failed, sent again before any other

	// storeMu orders a flush's write and a read of the quotas: a read
	// sees a flush whole or not at all, so that what the flush wrote is
	// added to the records exactly once (by the read, or by the flush to
	// the records read before it).
	storeMu sync.Mutex
}

func newQuotaState(eng Engine, stats *dirStats) *quotaState {
	q := &quotaState{pending: map[Ino]DirStat{}, parents: map[Ino]Ino{}, mark: FlushMark{Key: stats.mark.Key + 1}}
	if stats.on() {
		q.store, _ = Capability[QuotaStore](eng)
	}
	return q
}

// current returns the quotas, read again when older than QuotaRefresh.
func (c *Client) currentQuotas(ctx context.Context) (map[Ino]Quota, error) {
	q := c.quota
	q.mu.Lock()
	if time.Since(q.readAt) < QuotaRefresh {
		m := q.quotas
		q.mu.Unlock()
		return m, nil
	}
	q.mu.Unlock()
	defer c.observe("quotas", now())
	q.storeMu.Lock()
	defer q.storeMu.Unlock()
	m, err := q.store.Quotas(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the quotas: %w", err)
	}
	q.mu.Lock()
	q.read(m)
	q.mu.Unlock()
	return m, nil
}

// read takes m, just read from the store, as the quotas. Call with
// storeMu and mu held.
func (q *quotaState) read(m map[Ino]Quota) {
	q.quotas, q.readAt = m, time.Now()
	q.parents = map[Ino]Ino{}
}

// quotasAbove returns the quota directories dir is in: dir itself and its
// ancestors that have a quota. No round trip when there are no quotas.
func (c *Client) quotasAbove(ctx context.Context, dir Ino) ([]Ino, map[Ino]Quota, error) {
	if c.quota.store == nil || dir == 0 {
		return nil, nil, nil
	}
	quotas, err := c.currentQuotas(ctx)
	if err != nil || len(quotas) == 0 {
		return nil, quotas, err
	}
	var above []Ino
	for d, steps := dir, 0; ; steps++ {
		if _, ok := quotas[d]; ok {
			above = append(above, d)
		}
		if d == RootIno || IsTrashIno(d) || steps > 4096 {
			return above, quotas, nil
		}
		c.quota.mu.Lock()
		up, ok := c.quota.parents[d]
		c.quota.mu.Unlock()
		if !ok {
			a, err := c.GetAttr(ctx, d)
			if err != nil {
				return nil, nil, err
			}
			up = a.Parent
			if up == 0 {
				up = RootIno
			}
			c.quota.mu.Lock()
			c.quota.parents[d] = up
			c.quota.mu.Unlock()
		}
		d = up
	}
}

// checkQuota refuses with ErrQuota a change adding d under directory dir
// that a quota above dir would not allow; except lists quota directories
// the change does not count in (a rename's source side).
func (c *Client) checkQuota(ctx context.Context, dir Ino, d DirStat, except ...Ino) error {
	if d.Space <= 0 && d.Inodes <= 0 {
		return nil
	}
	above, _, err := c.quotasAbove(ctx, dir)
	if err != nil {
		return err
	}
	c.quota.mu.Lock()
	defer c.quota.mu.Unlock()
	for _, qd := range above {
		if contains(except, qd) {
			continue
		}
		q := c.quota.quotas[qd] // the records as they are now, with what was written since
		used := DirStat{Space: q.Space, Inodes: q.Inodes}.Add(c.quota.unwritten(qd))
		if q.MaxSpace > 0 && d.Space > 0 && used.Space+d.Space > q.MaxSpace {
			return fmt.Errorf("%d bytes more in directory %d: %w", d.Space, qd, ErrQuota)
		}
		if q.MaxInodes > 0 && d.Inodes > 0 && used.Inodes+d.Inodes > q.MaxInodes {
			return fmt.Errorf("%d inodes more in directory %d: %w", d.Inodes, qd, ErrQuota)
		}
	}
	return nil
}

// checkLinkQuota refuses with ErrQuota a hard link of file ino into dir
// that a quota above dir would not allow, judged on the file's real
// attributes (read when this client has them not, and only when a quota
// is above dir).
func (c *Client) checkLinkQuota(ctx context.Context, dir, ino Ino) error {
	above, _, err := c.quotasAbove(ctx, dir)
	if err != nil || len(above) == 0 {
		return err
	}
	a, err := c.GetAttr(ctx, ino)
	if err != nil {
		return err
	}
	return c.checkQuota(ctx, dir, entryOf(&a))
}

// treeUsage counts what is under directory dir (dir not included) from
// its entries.
func (c *Client) treeUsage(ctx context.Context, dir Ino) (DirStat, error) {
	return TreeUsage(ctx, c.eng, dir)
}

// setQuotaParent records that directory dir is now in parent.
func (c *Client) setQuotaParent(dir, parent Ino) {
	c.quota.mu.Lock()
	c.quota.parents[dir] = parent
	c.quota.mu.Unlock()
}

func contains(list []Ino, ino Ino) bool {
	for _, x := range list {
		if x == ino {
			return true
		}
	}
	return false
}

// chargeQuota counts d in every quota above dir, to be written with the
// next flush.
func (c *Client) chargeQuota(ctx context.Context, dir Ino, d DirStat) {
	if c.quota.store == nil || d == (DirStat{}) {
		return
	}
	above, _, err := c.quotasAbove(ctx, dir)
	if err != nil {
		return // the next quota check recounts nothing; quota check --repair does
	}
	c.quota.mu.Lock()
	for _, qd := range above {
		c.quota.pending[qd] = c.quota.pending[qd].Add(d)
	}
	c.quota.mu.Unlock()
}

// count records d in dir's statistics and the quotas above it.
func (c *Client) count(ctx context.Context, dir Ino, d DirStat) {
	c.stats.add(dir, d)
	c.chargeQuota(ctx, dir, d)
}

// unwritten is this client's change to quota dir's usage that the
// records it read do not hold yet. Call with q.mu held.
func (q *quotaState) unwritten(dir Ino) DirStat {
	return q.pending[dir].Add(q.inFlight[dir])
}

// flushQuotas writes the usage sums in one call, after the batch of a
// flush that failed, if any (see FlushMark). While a batch is written,
// or waits to be sent again after a failure, it still counts in checks
// (inFlight); once written it is added to the records this client read
// before (a read after sees it itself). A batch whose first write failed
// may have been applied and read since (while in doubt it may then count
// twice in checks, the safe side): once it is written the quotas are
// read again instead.
func (c *Client) flushQuotas(ctx context.Context) error {
	q := c.quota
	if q.store == nil {
		return nil
	}
	q.storeMu.Lock()
	defer q.storeMu.Unlock()
	if err := q.sendDoubt(ctx, q.store, q.store.Quotas); err != nil {
		return fmt.Errorf("write quota usage: %w", err)
	}
	q.mu.Lock()
	deltas := q.pending
	q.pending, q.inFlight = map[Ino]DirStat{}, deltas
	q.mu.Unlock()
	if len(deltas) == 0 {
		return nil
	}
	q.mark.Seq++
	if err := q.store.AddQuotaUsage(ctx, deltas, q.mark); err != nil {
		q.doubt = &statBatch{deltas: deltas, mark: q.mark}
		return fmt.Errorf("write quota usage: %w", err)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.inFlight = nil
	records := maps.Clone(q.quotas)
	for d, v := range deltas {
		if rec, ok := records[d]; ok {
			rec.Space += v.Space
			rec.Inodes += v.Inodes
			records[d] = rec
		}
	}
	q.quotas = records
	return nil
}

// settleQuotas writes the usage batch in doubt, if any, to store (the
// engine a migration's pause holds, reached around the pause), with its
// mark; the quotas are read again at the next check.
func (c *Client) settleQuotas(ctx context.Context, store QuotaStore) error {
	q := c.quota
	q.storeMu.Lock()
	defer q.storeMu.Unlock()
	return q.sendDoubt(ctx, store, nil)
}

// sendDoubt writes the usage batch in doubt, if any, to store with its
// mark; on failure it stays in doubt, and the error is store's, as it
// is. Once written it no longer counts in checks (inFlight), and the
// quotas, which may hold it already, are taken from reread (the flush:
// at once) or, when reread is nil or fails, read at the next check.
// Call with storeMu held.
func (q *quotaState) sendDoubt(ctx context.Context, store QuotaStore, reread func(context.Context) (map[Ino]Quota, error)) error {
	if q.doubt == nil {
		return nil
	}
	if err := store.AddQuotaUsage(ctx, q.doubt.deltas, q.doubt.mark); err != nil {
		return err
	}
	q.doubt = nil
	var m map[Ino]Quota
	fresh := false
	if reread != nil {
		var err error
		m, err = reread(ctx)
		fresh = err == nil
	}
	q.mu.Lock()
	q.inFlight = nil
	if fresh {
		q.read(m)
	} else {
		q.readAt = time.Time{} // the next check reads them
	}
	q.mu.Unlock()
	return nil
}

// forgetQuotas makes the next check read the quotas again.
func (c *Client) forgetQuotas() {
	c.quota.mu.Lock()
	c.quota.readAt = time.Time{}
	c.quota.mu.Unlock()
}

// CheckGrowth refuses with ErrQuota a write that would make file ino end
// at end, when a quota above the directory it was reached through would
// not allow it (vfs asks at write(2), before buffering).
func (c *Client) CheckGrowth(ctx context.Context, ino Ino, end uint64) error {
	if c.quota.store == nil {
		return nil
	}
	dir, grow := c.stats.growth(ino, end)
	return c.checkQuota(ctx, dir, grow)
}

// QuotaOf returns directory dir's quota with this client's unflushed
// usage added (df in a --subdir mount); false when it has none.
func (c *Client) QuotaOf(ctx context.Context, dir Ino) (Quota, bool, error) {
	if c.quota.store == nil {
		return Quota{}, false, nil
	}
	if _, err := c.currentQuotas(ctx); err != nil {
		return Quota{}, false, err
	}
	c.quota.mu.Lock()
	q, ok := c.quota.quotas[dir]
	d := c.quota.unwritten(dir)
	c.quota.mu.Unlock()
	if !ok {
		return Quota{}, false, nil
	}
	q.Space += d.Space
	q.Inodes += d.Inodes
	return q, true, nil
}
