package kv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/dgraph-io/badger/v4"
)

// BadgerStore is an embedded BadgerDB in one directory. Only one process
// may open a directory at a time: a second one gets an error naming the
// holder (see dirLock). Commits are synced to disk before they return
// unless NoSync was asked for: by syncing Badger's write-ahead logs only
// (walSyncer) while every value stays below Badger's ValueThreshold, and
// by Badger's own SyncWrites from the first larger value on.
type BadgerStore struct {
	// mu is held for reading by every transaction and snapshot, for
	// writing by the switch to SyncWrites, which opens db again.
	mu   sync.RWMutex
	db   *badger.DB
	opts badger.Options // what db was opened with, outside a load
	// wal, when not nil, makes each commit durable (Badger runs without
	// SyncWrites); nil with NoSync or once Badger syncs itself.
	wal  *walSyncer
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
		WithSyncWrites(false).
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
	s := &BadgerStore{db: db, opts: opts, lock: lock}
	if !o.NoSync {
		s.wal = newWALSyncer(dir, func() error { return s.db.Sync() })
	}
	return s, nil
}

// reopen closes the database and opens it again with opts, keeping the
// directory's lock. What the closed database held (its memtable, caches
// and the table builders' allocators) is given back to the system before
// the open allocates its own. If the open fails, the store is left
// closed: every later call fails. Call it with s.mu held.
func (s *BadgerStore) reopen(opts badger.Options) error {
	if s.wal != nil {
		// Badger may give the new database's logs the names of the old
		// ones it deleted.
		s.wal.close()
	}
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
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wal != nil {
		s.wal.close()
	}
	err := s.db.Close()
	s.lock.release()
	return err
}

func (s *BadgerStore) Txn(ctx context.Context, fn func(tx Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.txns.Add(1)
	s.mu.RLock()
	locked := true
	defer func() {
		if locked {
			s.mu.RUnlock()
		}
	}()
	txn := s.db.NewTransaction(true)
	defer txn.Discard()
	tx := &badgerTx{txn: txn, big: s.opts.ValueThreshold}
	if err := fn(tx); err != nil {
		return err
	}
	if tx.err != nil {
		return tx.err
	}
	if !tx.wrote {
		return nil
	}
	if tx.wroteBig && s.wal != nil {
		// Badger writes such a value to its value log before the entry
		// that points at it, and only its own SyncWrites syncs the one
		// before the other is written. The switch waits for the read
		// lock, so this transaction ends first.
		txn.Discard()
		s.mu.RUnlock()
		locked = false
		if err := s.syncEveryCommit(); err != nil {
			return err
		}
		return fmt.Errorf("badger: switched to syncing every commit for a value of %d bytes or more: %w", tx.big, ErrTxnConflict)
	}
	err := txn.Commit()
	if errors.Is(err, badger.ErrConflict) {
		return fmt.Errorf("badger: %w", ErrTxnConflict)
	}
	if err != nil {
		return fmt.Errorf("badger commit: %w", err)
	}
	if s.wal != nil {
		return s.wal.sync()
	}
	return nil
}

// syncEveryCommit opens the database again with Badger's SyncWrites, for
// the rest of this store's life: once no transaction or snapshot is open
// (a dump running holds it back until it ends, and with it every new
// transaction).
func (s *BadgerStore) syncEveryCommit() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wal == nil {
		return nil
	}
	opts := s.opts.WithSyncWrites(true)
	if err := s.reopen(opts); err != nil {
		return err
	}
	s.opts, s.wal = opts, nil
	return nil
}

// badgerTx adapts a Badger transaction. Badger tracks the keys it reads
// and fails the commit when another transaction changed one of them.
type badgerTx struct {
	txn   *badger.Txn
	err   error // first write error, reported at commit
	wrote bool
	// big is the size from which Badger puts a value in its value log
	// (ValueThreshold); wroteBig says a Put wrote one.
	big      int64
	wroteBig bool
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
	// each: a dump scans every key of the volume. The first block is
	// small, since most scans read a few pairs (an rmdir's check that a
	// directory is empty reads two or three), and each next one is twice
	// as big, up to scanBlockBytes.
	var block []byte
	next := scanFirstBlock
	for it.Seek(begin); it.Valid(); it.Next() {
		item := it.Item()
		key := item.Key()
		if bytes.Compare(key, end) >= 0 || (limit > 0 && len(out) == limit) {
			break
		}
		err := item.Value(func(v []byte) error {
			n := len(key) + len(v)
			if cap(block)-len(block) < n {
				block = make([]byte, 0, max(n, next))
				next = min(2*next, scanBlockBytes)
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

// scanFirstBlock and scanBlockBytes are the sizes of the first and the
// largest blocks Scan copies pairs into.
const (
	scanFirstBlock = 1 << 10
	scanBlockBytes = 64 << 10
)

func (t *badgerTx) Put(key, value []byte) {
	t.wrote = true
	if t.big > 0 && int64(len(value)) >= t.big {
		t.wroteBig = true
	}
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
