package kv

import (
	"bytes"
	"context"
	"crypto/rand"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"cairn/meta"
)

// A commit whose answer is lost (its deadline passed, its connection
// broke) may have taken effect, may take effect later (the request waits
// in a member, or its proposal in the cluster's log), or may never.
// Failing it with EIO tells the application nothing; settle finds out
// which it was, from a key the commit compared at revision seen and
// changed (put or deleted), its witness:
//
//   - While the witness still has revision seen, the commit has not taken
//     effect. A compare-and-swap that writes the witness's own value back
//     if it still has revision seen (the poison) makes sure it never will:
//     its compare then fails, however late it reaches the cluster. The
//     operation runs again from its reads.
//   - Once the witness has changed, the first change after seen decides:
//     the commit compared the witness at seen, so it can only have been
//     that first change, and if another transaction made it the commit
//     can never take effect. Every commit also puts a random mark into
//     the volume's scratch key (one put more in the same request), and
//     as etcd applies each transaction whole at a revision of its own,
//     the scratch key holds the commit's mark at the first change's
//     revision exactly when that change was the commit's.
//
// A commit without a witness (one that only put keys it did not read;
// it carries no mark either), without a mark (one that already had
// etcd's maximum of operations or size), a
// revision compacted away, or a cluster that does not answer before the
// caller's deadline leaves the outcome unknown: the operation fails with
// EIO as before.
type settlement int

const (
	outcomeUnknown settlement = iota
	outcomeApplied
	outcomeNotApplied
)

// settleTimeout bounds the wait of a caller without a deadline.
const settleTimeout = time.Minute

// setMarkKey gives the store the key every commit puts its mark in (the
// volume's scratch key, see New).
func (s *EtcdStore) setMarkKey(key []byte) { s.mark = string(key) }

// newMark is a commit's mark: random, so that no other commit's is equal.
func newMark() []byte {
	b := make([]byte, 16)
	rand.Read(b)
	return b
}

// witness is the key settle decides by, and the revision the commit
// compared it at; "" when the commit changed no key it read. The most
// recently read candidate: a speculative commit's oldest cached revisions
// are the likeliest to be compacted away.
func (t *etcdTx) witness() (string, int64) {
	witness, seen := "", int64(0)
	for k, rev := range t.reads {
		_, put := t.writes[k]
		if rev > seen && (put || t.deletes[k]) {
			witness, seen = k, rev
		}
	}
	return witness, seen
}

// settle decides the outcome of t's commit, sent with mark, whose answer
// was lost.
func (t *etcdTx) settle(mark []byte) settlement {
	witness, seen := t.witness()
	if witness == "" {
		return outcomeUnknown
	}
	ctx, cancel := context.WithTimeout(t.ctx, settleTimeout)
	defer cancel()
	for {
		var resp *clientv3.GetResponse
		err := t.s.untilAnswered(ctx, func(ctx context.Context) (err error) {
			resp, err = t.s.cli.Get(ctx, witness)
			return err
		})
		if err != nil {
			return outcomeUnknown
		}
		kvs := resp.Kvs
		if len(kvs) == 0 || kvs[0].ModRevision != seen {
			break // changed: the first change decides
		}
		poisoned := false
		err = t.s.untilAnswered(ctx, func(ctx context.Context) error {
			r, err := t.s.cli.Txn(ctx).
				If(clientv3.Compare(clientv3.ModRevision(witness), "=", seen)).
				Then(clientv3.OpPut(witness, string(kvs[0].Value), clientv3.WithIgnoreLease())).
				Commit()
			if err == nil {
				poisoned = r.Succeeded
			}
			return err
		})
		switch {
		case err != nil:
			// Still no answer at the deadline, or one that is an error
			// (a cluster out of space or overloaded): not hammered.
			return outcomeUnknown
		case poisoned:
			t.s.cache.drop(witness)
			return outcomeNotApplied
		}
	}
	if mark == nil {
		return outcomeUnknown
	}
	first, ok := t.s.firstChange(ctx, witness, seen+1)
	if !ok {
		return outcomeUnknown
	}
	var resp *clientv3.GetResponse
	err := t.s.untilAnswered(ctx, func(ctx context.Context) (err error) {
		resp, err = t.s.cli.Get(ctx, t.s.mark, clientv3.WithRev(first))
		return err
	})
	if err != nil {
		return outcomeUnknown
	}
	kvs := resp.Kvs
	if len(kvs) > 0 && kvs[0].ModRevision == first && bytes.Equal(kvs[0].Value, mark) {
		return outcomeApplied
	}
	return outcomeNotApplied
}

// firstChange is the revision of the first change of key from revision
// from on (one the caller knows exists), read from the cluster's history.
func (s *EtcdStore) firstChange(ctx context.Context, key string, from int64) (int64, bool) {
	for ctx.Err() == nil {
		wctx, cancel := context.WithTimeout(clientv3.WithRequireLeader(ctx), etcdRequestTimeout)
		s.requests.Add(1)
		for resp := range s.cli.Watch(wctx, key, clientv3.WithRev(from)) {
			if resp.CompactRevision != 0 {
				cancel()
				return 0, false // that history is gone
			}
			if len(resp.Events) > 0 {
				cancel()
				return resp.Events[0].Kv.ModRevision, true
			}
			if resp.Err() != nil {
				break
			}
		}
		cancel()
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
	return 0, false
}

// untilAnswered sends the request f (a read, or a write that may be
// repeated) until the cluster answers it or ctx ends; an answer that is an
// error ends it too.
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
