package kv

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
)

// MemStore is an in-memory ordered map with optimistic, serializable
// transactions: a transaction reads the state as of its start and commits
// only if nothing it read (keys and scanned ranges) changed since. It
// backs mem:// volumes and unit tests; everything is lost on Close.
type MemStore struct {
	mu     sync.RWMutex
	keys   []string // sorted, including tombstones
	items  map[string]*memItem
	seq    uint64         // version of the last commit
	active map[uint64]int // start versions of running transactions
	tombs  int
	txns   atomic.Uint64
}

// memItem is one key's latest value; a nil value is a tombstone kept so
// that transactions which read the key before its deletion notice it.
type memItem struct {
	value   []byte
	version uint64
}

// NewMemStore returns an empty store.
func NewMemStore() *MemStore {
	return &MemStore{items: map[string]*memItem{}, active: map[uint64]int{}}
}

var _ Store = (*MemStore)(nil)

func (s *MemStore) Name() string       { return "mem" }
func (s *MemStore) RoundTrips() uint64 { return s.txns.Load() }
func (s *MemStore) Close() error       { return nil }

// Txn implements Store.
func (s *MemStore) Txn(ctx context.Context, fn func(tx Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.txns.Add(1)
	s.mu.Lock()
	start := s.seq
	s.active[start]++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.active[start]--; s.active[start] == 0 {
			delete(s.active, start)
		}
		s.mu.Unlock()
	}()
	tx := &memTx{s: s, start: start, writes: map[string][]byte{}, deletes: map[string]bool{}}
	if err := fn(tx); err != nil {
		return err
	}
	if len(tx.writes) == 0 && len(tx.deletes) == 0 {
		return nil
	}
	return s.commit(tx)
}

func (s *MemStore) commit(tx *memTx) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range tx.reads {
		if it := s.items[k]; it != nil && it.version > tx.start {
			return fmt.Errorf("key %q changed: %w", k, ErrTxnConflict)
		}
	}
	for _, r := range tx.ranges {
		if err := s.checkRange(r[0], r[1], tx.start); err != nil {
			return err
		}
	}
	s.seq++
	for k, v := range tx.writes {
		s.set(k, v)
	}
	for k := range tx.deletes {
		s.set(k, nil)
	}
	s.collectTombstones()
	return nil
}

// checkRange fails when a key in [begin, end) changed after version start.
func (s *MemStore) checkRange(begin, end string, start uint64) error {
	i := sort.SearchStrings(s.keys, begin)
	for ; i < len(s.keys) && s.keys[i] < end; i++ {
		if s.items[s.keys[i]].version > start {
			return fmt.Errorf("range at %q changed: %w", s.keys[i], ErrTxnConflict)
		}
	}
	return nil
}

func (s *MemStore) set(k string, v []byte) {
	it := s.items[k]
	if it == nil {
		it = &memItem{}
		s.items[k] = it
		i := sort.SearchStrings(s.keys, k)
		s.keys = append(s.keys, "")
		copy(s.keys[i+1:], s.keys[i:])
		s.keys[i] = k
	} else if it.value == nil {
		s.tombs--
	}
	if v == nil {
		s.tombs++
	}
	it.value, it.version = v, s.seq
}

// collectTombstones drops tombstones that no running transaction can have
// read before the deletion; it runs once they pile up.
func (s *MemStore) collectTombstones() {
	if s.tombs < 1024 || s.tombs < len(s.keys)/4 {
		return
	}
	oldest := s.seq
	for v := range s.active {
		oldest = min(oldest, v)
	}
	kept := s.keys[:0]
	for _, k := range s.keys {
		it := s.items[k]
		if it.value == nil && it.version <= oldest {
			delete(s.items, k)
			s.tombs--
			continue
		}
		kept = append(kept, k)
	}
	s.keys = kept
}

// memTx reads the store as of version start and buffers its writes.
type memTx struct {
	s       *MemStore
	start   uint64
	reads   map[string]bool
	ranges  [][2]string
	writes  map[string][]byte
	deletes map[string]bool
}

func (t *memTx) read(k string) ([]byte, error) {
	if v, ok := t.writes[k]; ok {
		return bytes.Clone(v), nil
	}
	if t.deletes[k] {
		return nil, nil
	}
	if t.reads == nil {
		t.reads = map[string]bool{}
	}
	t.reads[k] = true
	it := t.s.items[k]
	if it == nil {
		return nil, nil
	}
	if it.version > t.start {
		return nil, fmt.Errorf("key %q changed: %w", k, ErrTxnConflict)
	}
	return bytes.Clone(it.value), nil
}

func (t *memTx) Get(key []byte) ([]byte, error) {
	t.s.mu.RLock()
	defer t.s.mu.RUnlock()
	return t.read(string(key))
}

func (t *memTx) BatchGet(keys [][]byte) ([][]byte, error) {
	t.s.mu.RLock()
	defer t.s.mu.RUnlock()
	out := make([][]byte, len(keys))
	for i, k := range keys {
		v, err := t.read(string(k))
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func (t *memTx) Scan(begin, end []byte, limit int) ([]KeyValue, error) {
	t.s.mu.RLock()
	defer t.s.mu.RUnlock()
	b, e := string(begin), string(end)
	var out []KeyValue
	i := sort.SearchStrings(t.s.keys, b)
	last := e
	for ; i < len(t.s.keys) && t.s.keys[i] < e; i++ {
		k := t.s.keys[i]
		it := t.s.items[k]
		if it.version > t.start {
			return nil, fmt.Errorf("range at %q changed: %w", k, ErrTxnConflict)
		}
		if it.value == nil {
			continue
		}
		if limit > 0 && len(out) == limit {
			last = k
			break
		}
		out = append(out, KeyValue{Key: []byte(k), Value: bytes.Clone(it.value)})
	}
	t.ranges = append(t.ranges, [2]string{b, last})
	return out, nil
}

func (t *memTx) Put(key, value []byte) {
	k := string(key)
	delete(t.deletes, k)
	t.writes[k] = bytes.Clone(value)
	if t.writes[k] == nil {
		t.writes[k] = []byte{}
	}
}

func (t *memTx) Delete(key []byte) {
	k := string(key)
	delete(t.writes, k)
	t.deletes[k] = true
}
