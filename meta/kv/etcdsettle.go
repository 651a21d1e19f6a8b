package kv

import (
	"bytes"
	"context"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"cairn/meta"
)

// A commit whose answer is lost (its deadline passed, its connection
// broke) may have taken effect, may take effect later (the proposal
// waits in the cluster's log), or may never. Failing it with EIO tells
// the application nothing; settle finds out which it was.
//
// First a fence: a write of the scratch key, which the cluster orders
// after every proposal already in its log, so that once it is answered
// the lost commit is applied or will never be. Then, as every etcd
// transaction is applied whole at one revision of its own:
//
//   - applied: some revision R holds every key the commit put with the
//     commit's value (and ModRevision R) and none it deleted;
//   - not applied: a key the commit both compared and put still has the
//     revision the commit compared against: had it been applied, that key
//     would be newer. The operation is then run again, from its reads.
//
// Anything else (no such key, a revision compacted away, a fence that
// does not get through before settleTimeout) leaves the outcome unknown,
// and the operation fails with EIO as before.
//
// One case is beyond the fence: a request that a member had received but
// not yet proposed when the fence went through another member may still
// be proposed after it. The operation then runs again and its own
// compare-and-swap stops one of the two: nothing is applied twice, and
// the repeat finds the first one's effect (a create then sees its own
// entry, which meta/kv's Mknod takes as done).
type settlement int

const (
	outcomeUnknown settlement = iota
	outcomeApplied
	outcomeNotApplied
)

// settleTimeout bounds the fence's wait for a cluster that stays away.
const settleTimeout = time.Minute

// setFenceKey gives the store the key its fences write (the volume's
// scratch key, see New).
func (s *EtcdStore) setFenceKey(key []byte) { s.fence = string(key) }

// settle decides the outcome of t's commit, whose answer was lost.
func (t *etcdTx) settle() settlement {
	if t.s.fence == "" || len(t.writes) == 0 {
		return outcomeUnknown
	}
	// A key both compared and put: the witness of "not applied".
	witness, seen := "", int64(0)
	for k := range t.writes {
		if rev, ok := t.reads[k]; ok && rev > 0 {
			witness, seen = k, rev
			break
		}
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(t.ctx), settleTimeout)
	defer cancel()
	if d, ok := t.ctx.Deadline(); ok {
		ctx, cancel = context.WithDeadline(ctx, d)
		defer cancel()
	}
	err := t.s.untilAnswered(ctx, func(ctx context.Context) error {
		_, err := t.s.cli.Put(ctx, t.s.fence, "")
		return err
	})
	if err != nil {
		return outcomeUnknown
	}
	// The keys put, now: a candidate revision is one where a key still
	// holds the commit's value.
	keys := make([]string, 0, len(t.writes))
	for k := range t.writes {
		keys = append(keys, k)
	}
	now, err := t.s.getAt(ctx, keys, 0)
	if err != nil {
		return outcomeUnknown
	}
	tried := map[int64]bool{}
	for _, k := range keys {
		kv := now[k]
		if kv == nil || !bytes.Equal(kv.Value, t.writes[k]) || tried[kv.ModRevision] || len(tried) == 4 {
			continue
		}
		tried[kv.ModRevision] = true
		applied, err := t.appliedAt(ctx, kv.ModRevision)
		if err != nil {
			return outcomeUnknown
		}
		if applied {
			return outcomeApplied
		}
	}
	if witness != "" {
		if kv := now[witness]; kv != nil && kv.ModRevision == seen {
			return outcomeNotApplied
		}
	}
	return outcomeUnknown
}

// appliedAt reports whether revision rev holds every key t put with t's
// value, written at rev, and none of the keys t deleted.
func (t *etcdTx) appliedAt(ctx context.Context, rev int64) (bool, error) {
	keys := make([]string, 0, len(t.writes)+len(t.deletes))
	for k := range t.writes {
		keys = append(keys, k)
	}
	for k := range t.deletes {
		keys = append(keys, k)
	}
	at, err := t.s.getAt(ctx, keys, rev)
	if err != nil {
		return false, err
	}
	for k, v := range t.writes {
		kv := at[k]
		if kv == nil || kv.ModRevision != rev || !bytes.Equal(kv.Value, v) {
			return false, nil
		}
	}
	for k := range t.deletes {
		if at[k] != nil {
			return false, nil
		}
	}
	return true, nil
}

// getAt reads keys at revision rev (0: the latest) in requests of at most
// etcd's operation limit each, waiting for the cluster as a read does.
func (s *EtcdStore) getAt(ctx context.Context, keys []string, rev int64) (map[string]*mvccKV, error) {
	out := map[string]*mvccKV{}
	var opts []clientv3.OpOption
	if rev > 0 {
		opts = append(opts, clientv3.WithRev(rev))
	}
	for len(keys) > 0 {
		n := min(len(keys), etcdMaxTxnOps)
		ops := make([]clientv3.Op, n)
		for i, k := range keys[:n] {
			ops[i] = clientv3.OpGet(k, opts...)
		}
		var resp *clientv3.TxnResponse
		err := s.untilAnswered(ctx, func(ctx context.Context) (err error) {
			resp, err = s.cli.Txn(ctx).Then(ops...).Commit()
			return err
		})
		if err != nil {
			return nil, err
		}
		for i, k := range keys[:n] {
			if kvs := resp.Responses[i].GetResponseRange().Kvs; len(kvs) > 0 {
				out[k] = &mvccKV{Value: kvs[0].Value, ModRevision: kvs[0].ModRevision}
			}
		}
		keys = keys[n:]
	}
	return out, nil
}

// untilAnswered sends the request f (a read, or a write that may be
// repeated) until the cluster answers it or ctx ends; an answer that is an
// error (a revision compacted away) ends it too.
func (s *EtcdStore) untilAnswered(ctx context.Context, f func(ctx context.Context) error) error {
	for {
		err := s.call(ctx, true, f)
		if down, _ := meta.Unavailable(err); !down || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// mvccKV is a key's value and the revision that wrote it.
type mvccKV struct {
	Value       []byte
	ModRevision int64
}
