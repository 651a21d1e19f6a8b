package kv

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"cairn/meta"
)

// maxAttempts bounds how often one operation re-runs after conflicts;
// with the growing random backoff, that is a few seconds of trying.
const maxAttempts = 128

// txn runs fn as one transaction of the store, re-running the whole
// closure (reads included) when the store reports a conflict. fn must not
// keep results between attempts other than through what it sets last.
func (e *Engine) txn(ctx context.Context, fn func(t *txn) error) error {
	shard, leased := e.shards.tryTake()
	if leased {
		defer e.shards.give(shard)
	} else {
		shard = noShard
	}
	var err error
	for attempt := 0; attempt < maxAttempts; attempt++ {
		if attempt > 0 {
			e.retries.Add(1)
			backoff := time.Duration(rand.IntN(1+min(attempt, 40))) * 250 * time.Microsecond
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(backoff):
			}
		}
		err = e.store.Txn(ctx, func(tx Tx) error {
			t := &txn{Tx: tx, e: e, k: e.k, cache: map[string][]byte{}, shard: shard}
			if err := fn(t); err != nil {
				return err
			}
			return t.flushUsage()
		})
		if !errors.Is(err, ErrTxnConflict) {
			return err
		}
	}
	return fmt.Errorf("%w: gave up after %d attempts (%v)", meta.ErrConflict, maxAttempts, err)
}

// txn is one attempt of an operation: the store's transaction plus a cache
// of what it read and wrote, so that an operation can fetch every key it
// will need in one BatchGet and later read them for free.
type txn struct {
	Tx
	e     *Engine
	k     keys
	cache map[string][]byte // value, or nil when known missing
	usage map[int]usageDelta
	// shard is the usage shard this transaction charges, lent to it alone
	// among this engine's transactions; noShard when none was free.
	shard int
}

// noShard: the transaction charges each inode's usage to the inode's own
// shard.
const noShard = -1

// get reads key through the cache.
func (t *txn) get(key []byte) ([]byte, error) {
	if v, ok := t.cache[string(key)]; ok {
		return v, nil
	}
	v, err := t.Tx.Get(key)
	if err != nil {
		return nil, err
	}
	t.cache[string(key)] = v
	return v, nil
}

// prefetch reads the keys not yet cached in one request.
func (t *txn) prefetch(keys ...[]byte) error {
	var need [][]byte
	for _, k := range keys {
		if _, ok := t.cache[string(k)]; !ok {
			need = append(need, k)
		}
	}
	if len(need) == 0 {
		return nil
	}
	vals, err := t.Tx.BatchGet(need)
	if err != nil {
		return err
	}
	for i, k := range need {
		t.cache[string(k)] = vals[i]
	}
	return nil
}

// freshRanger is a store transaction that can use knowing that a range
// held no key before it (etcd: a later Scan of the range by the same
// client may then run on cached values, see etcdranges.go).
type freshRanger interface {
	FreshRange(begin, end []byte)
}

// freshRange says that [begin, end) holds no key before this transaction:
// the keys of an inode it creates.
func (t *txn) freshRange(begin, end []byte) {
	if f, ok := t.Tx.(freshRanger); ok {
		f.FreshRange(begin, end)
	}
}

func (t *txn) put(key, value []byte) {
	t.cache[string(key)] = value
	t.Tx.Put(key, value)
}

func (t *txn) del(key []byte) {
	t.cache[string(key)] = nil
	t.Tx.Delete(key)
}

// attr reads an inode's attributes: ErrNotFound when it does not exist.
func (t *txn) attr(ino meta.Ino) (meta.Attr, error) {
	v, err := t.get(t.k.attr(ino))
	if err != nil {
		return meta.Attr{}, err
	}
	if v == nil {
		return meta.Attr{}, fmt.Errorf("inode %d: %w", ino, meta.ErrNotFound)
	}
	a, err := decodeAttr(v)
	if err != nil {
		return a, fmt.Errorf("inode %d: %w", ino, err)
	}
	return a, nil
}

// dir reads a directory's attributes: ErrNotFound, or ErrNotDir.
func (t *txn) dir(ino meta.Ino) (meta.Attr, error) {
	a, err := t.attr(ino)
	if err != nil {
		return a, err
	}
	if !a.IsDir() {
		return a, fmt.Errorf("inode %d: %w", ino, meta.ErrNotDir)
	}
	return a, nil
}

func (t *txn) setAttr(ino meta.Ino, a *meta.Attr) { t.put(t.k.attr(ino), encodeAttr(a)) }

// entry looks name up in dir: ok false when missing.
func (t *txn) entry(dir meta.Ino, name string) (typ meta.FileType, ino meta.Ino, ok bool, err error) {
	v, err := t.get(t.k.entry(dir, name))
	if err != nil || v == nil {
		return 0, 0, false, err
	}
	typ, ino, err = decodeEntry(v)
	if err != nil {
		return 0, 0, false, fmt.Errorf("entry %q in inode %d: %w", name, dir, err)
	}
	return typ, ino, true, nil
}

// addUsage records a change of the volume's usage, charged to the
// transaction's shard (or ino's, see usageShard).
func (t *txn) addUsage(ino meta.Ino, space, inodes int64) {
	t.addShardUsage(t.usageShard(ino), space, inodes)
}

// usageShard is the shard a change to ino's usage is charged to: the
// transaction's own, so that this engine's transactions running at once
// never touch the same key; without one, ino's, so that operations on
// different inodes rarely do.
func (t *txn) usageShard(ino meta.Ino) int {
	if t.shard != noShard {
		return t.shard
	}
	return int(uint64(ino) % usageShards)
}

// addShardUsage records a change of the volume's usage in shard s.
func (t *txn) addShardUsage(s int, space, inodes int64) {
	if space == 0 && inodes == 0 {
		return
	}
	if t.usage == nil {
		t.usage = map[int]usageDelta{}
	}
	d := t.usage[s]
	d.space += space
	d.inodes += inodes
	t.usage[s] = d
}

// usageKey is the shard key that a change to ino's usage touches; callers
// prefetch it with their other reads.
func (t *txn) usageKey(ino meta.Ino) []byte {
	return t.k.usage(t.usageShard(ino))
}

func (t *txn) flushUsage() error {
	for s, d := range t.usage {
		v, err := t.get(t.k.usage(s))
		if err != nil {
			return err
		}
		u, err := decodeUsage(v)
		if err != nil {
			return err
		}
		u.space += d.space
		u.inodes += d.inodes
		t.put(t.k.usage(s), encodeUsage(u))
	}
	return nil
}

// spaceOf is what an inode counts for in Usage.Space: a regular file's
// length rounded up to 4 KiB.
func spaceOf(a *meta.Attr) int64 {
	if a.Type != meta.TypeFile {
		return 0
	}
	return int64((a.Length + 4095) &^ 4095)
}

// scanAll reads every pair in [begin, end) in pages of page pairs.
func (t *txn) scanAll(begin, end []byte, page int) ([]KeyValue, error) {
	var all []KeyValue
	for {
		kvs, err := t.Scan(begin, end, page)
		if err != nil {
			return nil, err
		}
		all = append(all, kvs...)
		if len(kvs) < page {
			return all, nil
		}
		begin = after(kvs[len(kvs)-1].Key)
	}
}
