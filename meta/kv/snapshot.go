package kv

import (
	"context"
	"errors"
	"fmt"
	"sort"
)

// snapshotter is implemented by stores that can read at one moment
// without the conflicts a read-write transaction may hit: fn runs exactly
// once, on a read-only view of the whole store as of its start, however
// long it reads and whatever others commit meanwhile. Put and Delete are
// not allowed in fn. Every store of this package implements it; a dump
// depends on it.
type snapshotter interface {
	Snapshot(ctx context.Context, fn func(tx Tx) error) error
}

// errReadOnly is what a write inside a snapshot reports.
var errReadOnly = errors.New("kv: write inside a read-only snapshot")

// readOnlyTx refuses writes, for stores whose transactions are already
// snapshots.
type readOnlyTx struct {
	Tx
	err *error
}

func (t readOnlyTx) Put(key, value []byte) { *t.err = errReadOnly }
func (t readOnlyTx) Delete(key []byte)     { *t.err = errReadOnly }

// Snapshot implements snapshotter: a Badger read-only transaction sees the
// database as of its start.
func (s *BadgerStore) Snapshot(ctx context.Context, fn func(tx Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.txns.Add(1)
	s.mu.RLock()
	defer s.mu.RUnlock()
	txn := s.db.NewTransaction(false)
	defer txn.Discard()
	var wrote error
	tx := &releasingTx{Tx: &badgerTx{txn: txn}, tables: newMappedTables(s.db.Opts().Dir)}
	if err := fn(readOnlyTx{Tx: tx, err: &wrote}); err != nil {
		return err
	}
	return wrote
}

// releasingTx is a Badger snapshot that drops the table pages its scans
// mapped in as it goes: a dump, its only user, reads each key once.
type releasingTx struct {
	Tx
	tables *mappedTables
}

func (t *releasingTx) Scan(begin, end []byte, limit int) ([]KeyValue, error) {
	pairs, err := t.Tx.Scan(begin, end, limit)
	n := 0
	for _, p := range pairs {
		n += len(p.Key) + len(p.Value)
	}
	t.tables.handled(n)
	return pairs, err
}

// Snapshot implements snapshotter: every read is at the revision of the
// first one, and nothing is committed. A snapshot that outlives etcd's
// compaction of its revision fails.
func (s *EtcdStore) Snapshot(ctx context.Context, fn func(tx Tx) error) error {
	var wrote error
	tx := s.newTx(ctx)
	tx.snapshot = true
	if err := fn(readOnlyTx{Tx: tx, err: &wrote}); err != nil {
		return err
	}
	return wrote
}

// Snapshot implements snapshotter: a TiKV transaction reads at its start
// timestamp; it is rolled back, never committed.
func (s *TiKVStore) Snapshot(ctx context.Context, fn func(tx Tx) error) error {
	s.requests.Add(1)
	txn, err := s.store.Begin()
	if err != nil {
		return fmt.Errorf("tikv begin: %w", err)
	}
	defer txn.Rollback()
	var wrote error
	tx := &tikvTx{s: s, ctx: ctx, txn: txn, reads: map[string]bool{}, writes: map[string]bool{}}
	if err := fn(readOnlyTx{Tx: tx, err: &wrote}); err != nil {
		return err
	}
	return wrote
}

// Snapshot implements snapshotter: the store has no versions to read from,
// so it copies itself under its lock (a mem:// volume is in memory
// anyway) and fn reads the copy.
func (s *MemStore) Snapshot(ctx context.Context, fn func(tx Tx) error) error {
	s.mu.RLock()
	c := NewMemStore()
	for _, k := range s.keys {
		if it := s.items[k]; it.value != nil {
			c.keys = append(c.keys, k)
			c.items[k] = &memItem{value: it.value}
		}
	}
	s.mu.RUnlock()
	sort.Strings(c.keys)
	return c.Txn(ctx, func(tx Tx) error {
		var wrote error
		if err := fn(readOnlyTx{Tx: tx, err: &wrote}); err != nil {
			return err
		}
		return wrote
	})
}

var (
	_ snapshotter = (*BadgerStore)(nil)
	_ snapshotter = (*EtcdStore)(nil)
	_ snapshotter = (*TiKVStore)(nil)
	_ snapshotter = (*MemStore)(nil)
)

// batchLimiter is implemented by stores that accept only so many writes
// per transaction.
type batchLimiter interface{ maxWrites() int }

func (s *EtcdStore) maxWrites() int { return etcdMaxTxnOps }

// parallelCommitter is implemented by stores where a load gains from
// several transactions in flight at once.
type parallelCommitter interface{ parallelCommits() int }

// parallelCommits: etcd's transactions are small (128 writes) and each
// waits for a raft round and a disk sync, which etcd shares among the
// proposals that arrive together.
func (s *EtcdStore) parallelCommits() int { return 8 }

// A load into Badger commits (and syncs) once per batch; batches of
// 16,384 small records stay within the share of the 16 MiB memtable a
// transaction may use.
func (s *BadgerStore) maxWrites() int { return 16384 }
