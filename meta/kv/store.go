package kv

import (
	"context"
	"errors"
)

// Store is an ordered key space with transactions. It is safe for
// concurrent use.
type Store interface {
	// Txn runs fn inside a transaction and commits what fn wrote when fn
	// returns nil. A store may run fn more than once (etcd first runs it on
	// cached values); only the writes of the run whose reads were current
	// are committed. When the commit (or a read inside fn) loses a race
	// with another transaction, Txn returns an error wrapping
	// ErrTxnConflict and nothing fn wrote is applied; the caller re-runs
	// the whole closure. An error returned by fn aborts the transaction and
	// is returned as is.
	Txn(ctx context.Context, fn func(tx Tx) error) error
	// RoundTrips is how many requests the store has sent to its server (for
	// embedded stores, how many transactions it ran).
	RoundTrips() uint64
	// Name is the URL scheme of the store, e.g. "etcd".
	Name() string
	Close() error
}

// Tx is one transaction of a Store. It is used by one goroutine. Values
// returned are owned by the caller. Get sees the transaction's own writes;
// Scan sees only what was committed before it, so callers scan before they
// write.
type Tx interface {
	// Get returns the value of key, or nil when there is none.
	Get(key []byte) ([]byte, error)
	// BatchGet returns the values of keys in order, nil where missing; on
	// network stores it is one request.
	BatchGet(keys [][]byte) ([][]byte, error)
	// Scan returns up to limit pairs (all when limit <= 0) with begin <= key
	// < end, in key order.
	Scan(begin, end []byte, limit int) ([]KeyValue, error)
	Put(key, value []byte)
	Delete(key []byte)
}

// KeyValue is one pair returned by Scan.
type KeyValue struct {
	Key   []byte
	Value []byte
}

// ErrTxnConflict is what a Store returns when a transaction lost a race and
// may be re-run from its reads. The engine retries it; meta.ErrConflict
// reaches callers only once the retry budget is spent.
var ErrTxnConflict = errors.New("kv transaction conflict")
