package kv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync/atomic"

	"github.com/dgraph-io/badger/v4"
)

// BadgerStore is an embedded BadgerDB in one directory. Only one process
// may open a directory at a time: a second one gets an error naming the
// holder (see dirLock). Commits are synced to disk before they return
// unless NoSync was asked for.
type BadgerStore struct {
	db   *badger.DB
	opts badger.Options // what db was opened with, outside a load
	lock *dirLock
	txns atomic.Uint64
}

// BadgerOptions are what a badger:// URL may set.
type BadgerOptions struct {
	// NoSync skips fsync on commit: faster, and a crash may lose the last
	// acknowledged operations.
	NoSync bool
}

// OpenBadger opens (creating if needed) the Badger database in dir.
func OpenBadger(dir string, o BadgerOptions) (*BadgerStore, error) {
	lock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	opts := badger.DefaultOptions(dir).
		WithSyncWrites(!o.NoSync).
		WithLogger(nil).
		WithMemTableSize(16 << 20).
		WithNumMemtables(2).
		WithBlockCacheSize(32 << 20).
		WithIndexCacheSize(16 << 20).
		WithValueLogFileSize(256 << 20)
	// Tables of one size at every level (2 MiB, the base size): a load's
	// StreamWriter builds tables of the deepest level's size, 64 MiB by
	// default, each in a buffer twice that size.
	opts.TableSizeMultiplier = 1
	db, err := badger.Open(opts)
	if err != nil {
		lock.release()
		return nil, fmt.Errorf("open badger directory %s: %w", dir, err)
	}
	return &BadgerStore{db: db, opts: opts, lock: lock}, nil
}

// reopen closes the database and opens it again with opts, keeping the
// directory's lock. What the closed database held (its memtable, caches
// and the table builders' allocators) is given back to the system before
// the open allocates its own. If the open fails, the store is left
// closed: every later call fails.
func (s *BadgerStore) reopen(opts badger.Options) error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close badger directory %s: %w", opts.Dir, err)
	}
	debug.FreeOSMemory()
	db, err := badger.Open(opts)
	if err != nil {
		return fmt.Errorf("open badger directory %s again: %w", opts.Dir, err)
	}
	s.db = db
	return nil
}

var _ Store = (*BadgerStore)(nil)

func (s *BadgerStore) Name() string       { return "badger" }
func (s *BadgerStore) RoundTrips() uint64 { return s.txns.Load() }

func (s *BadgerStore) Close() error {
	err := s.db.Close()
	s.lock.release()
	return err
}

func (s *BadgerStore) Txn(ctx context.Context, fn func(tx Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.txns.Add(1)
	txn := s.db.NewTransaction(true)
	defer txn.Discard()
	tx := &badgerTx{txn: txn}
	if err := fn(tx); err != nil {
		return err
	}
	if tx.err != nil {
		return tx.err
	}
	if !tx.wrote {
		return nil
	}
	err := txn.Commit()
	if errors.Is(err, badger.ErrConflict) {
		return fmt.Errorf("badger: %w", ErrTxnConflict)
	}
	if err != nil {
		return fmt.Errorf("badger commit: %w", err)
	}
	return nil
}

// badgerTx adapts a Badger transaction. Badger tracks the keys it reads
// and fails the commit when another transaction changed one of them.
type badgerTx struct {
	txn   *badger.Txn
	err   error // first write error, reported at commit
	wrote bool
}

func (t *badgerTx) Get(key []byte) ([]byte, error) {
	item, err := t.txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("badger get: %w", err)
	}
	v, err := item.ValueCopy(nil)
	if err != nil {
		return nil, fmt.Errorf("badger get: %w", err)
	}
	if v == nil {
		v = []byte{}
	}
	return v, nil
}

func (t *badgerTx) BatchGet(keys [][]byte) ([][]byte, error) {
	out := make([][]byte, len(keys))
	for i, k := range keys {
		v, err := t.Get(k)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func (t *badgerTx) Scan(begin, end []byte, limit int) ([]KeyValue, error) {
	opts := badger.DefaultIteratorOptions
	// Values are read as the loop reaches them: prefetching starts a
	// goroutine per key, which cost an rmdir's scan of its directory's
	// few keys (the check that it is empty) more than the rest of the
	// operation (issue 19).
	opts.PrefetchValues = false
	// The prefix begin and end share lets Badger skip the tables that
	// cannot hold the range.
	n := 0
	for n < len(begin) && n < len(end) && begin[n] == end[n] {
		n++
	}
	opts.Prefix = begin[:n]
	it := t.txn.NewIterator(opts)
	defer it.Close()
	var out []KeyValue
	// The pairs' bytes are copied into shared blocks, not one allocation
	// each: a dump scans every key of the volume.
	var block []byte
	for it.Seek(begin); it.Valid(); it.Next() {
		item := it.Item()
		key := item.Key()
		if bytes.Compare(key, end) >= 0 || (limit > 0 && len(out) == limit) {
			break
		}
		err := item.Value(func(v []byte) error {
			n := len(key) + len(v)
			if cap(block)-len(block) < n {
				block = make([]byte, 0, max(n, scanBlockBytes))
			}
			start := len(block)
			block = append(append(block, key...), v...)
			out = append(out, KeyValue{
				Key:   block[start : start+len(key) : start+len(key)],
				Value: block[start+len(key) : start+n : start+n],
			})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("badger scan: %w", err)
		}
	}
	return out, nil
}

// scanBlockBytes is the size of the blocks Scan copies pairs into.
const scanBlockBytes = 64 << 10

func (t *badgerTx) Put(key, value []byte) {
	t.wrote = true
	if err := t.txn.Set(key, value); err != nil && t.err == nil {
		t.err = fmt.Errorf("badger: %w", err)
	}
}

func (t *badgerTx) Delete(key []byte) {
	t.wrote = true
	if err := t.txn.Delete(key); err != nil && t.err == nil {
		t.err = fmt.Errorf("badger: %w", err)
	}
}
