package kv

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"cairn/meta"
)

// Engine is meta.Engine over a Store. One Engine is one client of the
// volume; many Engines (in many processes, for network stores) may share a
// volume.
type Engine struct {
	store   Store
	k       keys
	retries atomic.Uint64
	shards  *shardPool // usage shards lent to transactions

	mu     sync.RWMutex
	format *meta.Format // the limits, once Init or Load has read them
}

var _ meta.Engine = (*Engine)(nil)

// New returns the engine of the volume stored under prefix in store. The
// engine owns store and closes it.
func New(store Store, prefix string) *Engine {
	p := append([]byte(prefix), 0)
	if prefix == "" {
		p = nil
	}
	e := &Engine{store: store, k: keys{prefix: p}, shards: newShardPool()}
	if m, ok := store.(markedStore); ok {
		m.setMarkKey(e.k.key(tagFloor))
	}
	return e
}

// markedStore is a store whose commits can lose their answer and are settled
// afterwards by a mark each commit puts into a key no operation uses
// (etcd, see etcdsettle.go): New gives it the volume's scratch key.
type markedStore interface{ setMarkKey(key []byte) }

func (e *Engine) Name() string { return e.store.Name() }
func (e *Engine) Close() error { return e.store.Close() }

func (e *Engine) Stats() meta.Stats {
	return meta.Stats{RoundTrips: e.store.RoundTrips(), Retries: e.retries.Load()}
}

func now() int64 { return time.Now().UnixNano() }

// Init implements meta.Engine.
func (e *Engine) Init(ctx context.Context, f meta.Format, force bool) error {
	if f.Version == 0 {
		f.Version = meta.FormatVersion
	}
	data, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("encode settings: %w", err)
	}
	err = e.txn(ctx, func(t *txn) error {
		if err := t.prefetch(t.k.format(), t.k.attr(meta.RootIno)); err != nil {
			return err
		}
		old, err := t.get(t.k.format())
		if err != nil {
			return err
		}
		if old != nil && !force {
			return meta.ErrFormatted
		}
		t.put(t.k.format(), data)
		root, err := t.get(t.k.attr(meta.RootIno))
		if err != nil || root != nil {
			return err
		}
		ts := now()
		a := meta.Attr{Type: meta.TypeDirectory, Mode: 0777, Nlink: 2, Length: 4096,
			Atime: ts, Mtime: ts, Ctime: ts, Parent: meta.RootIno}
		t.setAttr(meta.RootIno, &a)
		t.put(t.k.counter(counterInode), u64(uint64(meta.RootIno)+1))
		t.put(t.k.counter(counterSlice), u64(1))
		t.addUsage(meta.RootIno, 0, 1)
		return nil
	})
	if err != nil {
		return fmt.Errorf("format volume on %s: %w", e.Name(), err)
	}
	e.setFormat(f)
	return nil
}

// Load implements meta.Engine.
func (e *Engine) Load(ctx context.Context) (meta.Format, error) {
	var f meta.Format
	err := e.txn(ctx, func(t *txn) error {
		v, err := t.get(t.k.format())
		if err != nil {
			return err
		}
		if v == nil {
			return meta.ErrNotFormatted
		}
		if err := json.Unmarshal(v, &f); err != nil {
			return fmt.Errorf("corrupt volume settings: %w", err)
		}
		return nil
	})
	if err != nil {
		return f, fmt.Errorf("load volume settings from %s: %w", e.Name(), err)
	}
	if err := meta.CheckVersion(f); err != nil {
		return f, err
	}
	e.setFormat(f)
	return f, nil
}

func (e *Engine) setFormat(f meta.Format) {
	e.mu.Lock()
	e.format = &f
	e.mu.Unlock()
}

// limits returns the volume's capacity and inode limits (0: none).
func (e *Engine) limits() (space, inodes uint64) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.format == nil {
		return 0, 0
	}
	return e.format.Capacity, e.format.Inodes
}
