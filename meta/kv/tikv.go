package kv

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	tikverr "github.com/tikv/client-go/v2/error"
	"github.com/tikv/client-go/v2/tikv"
	"github.com/tikv/client-go/v2/txnkv/transaction"
)

// TiKVStore is a volume in a TiKV cluster, through client-go's optimistic
// transactions with one-phase commit where TiKV can. TiKV checks only
// write-write conflicts (snapshot isolation), so at commit the keys a
// transaction read but did not write are locked too: a concurrent commit to
// any of them fails this one, which makes the engine's transactions
// serializable for the keys they read.
type TiKVStore struct {
	store    *tikv.KVStore
	requests atomic.Uint64
}

// NewTiKVStore wraps a client-go store (a real cluster's, or client-go's
// in-process test cluster).
func NewTiKVStore(store *tikv.KVStore) *TiKVStore { return &TiKVStore{store: store} }

var _ Store = (*TiKVStore)(nil)

func (s *TiKVStore) Name() string       { return "tikv" }
func (s *TiKVStore) RoundTrips() uint64 { return s.requests.Load() }
func (s *TiKVStore) Close() error       { return s.store.Close() }

func (s *TiKVStore) Txn(ctx context.Context, fn func(tx Tx) error) error {
	s.requests.Add(1) // the start timestamp from PD
	txn, err := s.store.Begin()
	if err != nil {
		return fmt.Errorf("tikv begin: %w", err)
	}
	txn.SetEnable1PC(true)
	tx := &tikvTx{s: s, ctx: ctx, txn: txn, reads: map[string]bool{}, writes: map[string]bool{}}
	if err := fn(tx); err != nil {
		txn.Rollback()
		return err
	}
	if tx.err != nil {
		txn.Rollback()
		return tx.err
	}
	if len(tx.writes) == 0 {
		return txn.Rollback()
	}
	return tx.commit()
}

type tikvTx struct {
	s      *TiKVStore
	ctx    context.Context
	txn    *transaction.KVTxn
	reads  map[string]bool
	writes map[string]bool
	err    error // first write error, reported at commit
}

func (t *tikvTx) Get(key []byte) ([]byte, error) {
	t.s.requests.Add(1)
	t.reads[string(key)] = true
	v, err := t.txn.Get(t.ctx, key)
	if tikverr.IsErrNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, tikvError("get", err)
	}
	if v == nil {
		v = []byte{}
	}
	return v, nil
}

func (t *tikvTx) BatchGet(keys [][]byte) ([][]byte, error) {
	t.s.requests.Add(1)
	m, err := t.txn.BatchGet(t.ctx, keys)
	if err != nil {
		return nil, tikvError("batch get", err)
	}
	out := make([][]byte, len(keys))
	for i, k := range keys {
		t.reads[string(k)] = true
		if v, ok := m[string(k)]; ok && len(v) > 0 {
			out[i] = v
		}
	}
	return out, nil
}

func (t *tikvTx) Scan(begin, end []byte, limit int) ([]KeyValue, error) {
	t.s.requests.Add(1)
	it, err := t.txn.Iter(begin, end)
	if err != nil {
		return nil, tikvError("scan", err)
	}
	defer it.Close()
	var out []KeyValue
	for it.Valid() && (limit <= 0 || len(out) < limit) {
		k := append([]byte{}, it.Key()...)
		t.reads[string(k)] = true
		out = append(out, KeyValue{Key: k, Value: append([]byte{}, it.Value()...)})
		if err := it.Next(); err != nil {
			return nil, tikvError("scan", err)
		}
	}
	return out, nil
}

func (t *tikvTx) Put(key, value []byte) {
	t.writes[string(key)] = true
	if err := t.txn.Set(key, append([]byte{}, value...)); err != nil && t.err == nil {
		t.err = tikvError("set", err)
	}
}

func (t *tikvTx) Delete(key []byte) {
	t.writes[string(key)] = true
	if err := t.txn.Delete(key); err != nil && t.err == nil {
		t.err = tikvError("delete", err)
	}
}

func (t *tikvTx) commit() error {
	var locks [][]byte
	for k := range t.reads {
		if !t.writes[k] {
			locks = append(locks, []byte(k))
		}
	}
	if len(locks) > 0 {
		if err := t.txn.LockKeysWithWaitTime(t.ctx, 0, locks...); err != nil {
			t.txn.Rollback()
			return tikvError("lock read keys", err)
		}
	}
	t.s.requests.Add(1)
	if err := t.txn.Commit(t.ctx); err != nil {
		return tikvError("commit", err)
	}
	return nil
}

// tikvError marks the errors that mean "lost a race, run again" as
// ErrTxnConflict.
func tikvError(op string, err error) error {
	var latch *tikverr.ErrWriteConflictInLatch
	var retry *tikverr.ErrRetryable
	if tikverr.IsErrWriteConflict(err) || errors.As(err, &latch) || errors.As(err, &retry) {
		return fmt.Errorf("tikv %s: %v: %w", op, err, ErrTxnConflict)
	}
	return fmt.Errorf("tikv %s: %w", op, err)
}
