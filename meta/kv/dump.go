package kv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"cairn/meta"
)

var _ meta.Dumper = (*Engine)(nil)

// dumpPage is how many keys a dump reads per Scan, which bounds its memory.
const dumpPage = 1024

// volumeRange covers every key of the volume.
func (k keys) volumeRange() ([]byte, []byte) {
	if len(k.prefix) == 0 {
		return []byte{0}, []byte{0xff}
	}
	end := append([]byte{}, k.prefix...)
	end[len(end)-1]++
	return append([]byte{}, k.prefix...), end
}

// Dump implements meta.Dumper. It reads inside the store's snapshot (a
// Badger read transaction, an etcd revision, a TiKV timestamp, a copy of
// a mem store), so what it writes is one moment of the volume. Slice
// records that a truncate filed for release (Q keys) are left out: their
// blocks are only kept alive a little longer by them, and are left for
// gc.
func (e *Engine) Dump(ctx context.Context, w meta.DumpWriter) error {
	ctx = withBulk(ctx)
	s, ok := e.store.(snapshotter)
	if !ok {
		return fmt.Errorf("dump %s: the store cannot read a snapshot", e.Name())
	}
	err := s.Snapshot(ctx, func(tx Tx) error { return e.dumpFrom(tx, w) })
	if err != nil {
		return fmt.Errorf("dump the volume on %s: %w", e.Name(), err)
	}
	return nil
}

func (e *Engine) dumpFrom(tx Tx, w meta.DumpWriter) error {
	k := e.k
	var h meta.DumpHeader
	v, err := tx.Get(k.format())
	if err != nil {
		return err
	}
	if v == nil {
		return meta.ErrNotFormatted
	}
	if err := json.Unmarshal(v, &h.Format); err != nil {
		return fmt.Errorf("corrupt volume settings: %w", err)
	}
	vals, err := tx.BatchGet([][]byte{k.counter(counterInode), k.counter(counterSlice)})
	if err != nil {
		return err
	}
	if h.NextInode, err = counterValue(vals[0]); err != nil {
		return err
	}
	if h.NextSlice, err = counterValue(vals[1]); err != nil {
		return err
	}
	h.NextInode, h.NextSlice = max(h.NextInode, 1), max(h.NextSlice, 1)
	if h.Usage, err = (&txn{Tx: tx, e: e, k: k, cache: map[string][]byte{}}).usageTotal(); err != nil {
		return err
	}
	orphans := map[meta.Ino]bool{}
	b, end := k.key(tagOrphan), k.key(tagOrphan+1)
	if err := scanAll(tx, b, end, func(kv KeyValue) error {
		orphans[meta.Ino(be.Uint64(k.suffix(kv.Key, 8)))] = true
		return nil
	}); err != nil {
		return err
	}
	if err := w.Header(h); err != nil {
		return err
	}
	var rec meta.DumpRecord
	err = k.scanInodes(tx, meta.Ino(h.NextInode), func(kv KeyValue) error {
		rest := k.suffix(kv.Key, 0)
		if len(rest) < 9 {
			return fmt.Errorf("corrupt inode key %q", kv.Key)
		}
		ino, sub, name := meta.Ino(be.Uint64(rest)), rest[8], rest[9:]
		if orphans[ino] {
			return nil
		}
		rec = meta.DumpRecord{Ino: ino}
		switch sub {
		case subAttr:
			rec.Kind = meta.DumpInode
			rec.Attr, err = decodeAttr(kv.Value)
		case subEntry:
			rec.Kind, rec.Name = meta.DumpEntry, string(name)
			rec.Type, rec.Child, err = decodeEntry(kv.Value)
		case subChunk:
			if len(name) != 4 {
				return fmt.Errorf("corrupt chunk key %q", kv.Key)
			}
			rec.Kind, rec.Index = meta.DumpChunk, be.Uint32(name)
			rec.Slices, err = meta.DecodeSliceRecords(kv.Value)
		case subXattr:
			if len(kv.Value) == 0 {
				return fmt.Errorf("inode %d: corrupt xattr %q", ino, name)
			}
			rec.Kind, rec.Name, rec.Value = meta.DumpXattr, string(name), decodeXattr(kv.Value)
		case subSymlink:
			rec.Kind, rec.Target = meta.DumpSymlink, string(kv.Value)
		default: // locks belong to live clients
			return nil
		}
		if err != nil {
			return fmt.Errorf("inode %d: %w", ino, err)
		}
		return w.Record(&rec)
	})
	if err != nil {
		return err
	}
	b, end = k.deadRange()
	return scanAll(tx, b, end, func(kv KeyValue) error {
		size, err := counterValue(append(make([]byte, 4), kv.Value...))
		if err != nil || len(kv.Value) != 4 {
			return fmt.Errorf("corrupt dead slice %q", kv.Key)
		}
		rec = meta.DumpRecord{Kind: meta.DumpDeadSlice, Slice: meta.DeadSlice{ID: be.Uint64(k.suffix(kv.Key, 0)), Size: uint32(size)}}
		return w.Record(&rec)
	})
}

// scanAll calls fn for every pair in [begin, end), reading a page at a
// time.
func scanAll(tx Tx, begin, end []byte, fn func(KeyValue) error) error {
	for {
		kvs, err := tx.Scan(begin, end, dumpPage)
		if err != nil {
			return err
		}
		for _, kv := range kvs {
			if err := fn(kv); err != nil {
				return err
			}
		}
		if len(kvs) < dumpPage {
			return nil
		}
		begin = after(kvs[len(kvs)-1].Key)
	}
}

// Restore implements meta.Dumper. It writes in transactions of blind
// puts, as many as the store takes at once, or, on a store that takes
// sorted keys (Badger), sorts them and hands them over (restoreSorted);
// the volume's settings go last. On failure it deletes every key it
// wrote.
func (e *Engine) Restore(ctx context.Context, r meta.DumpReader) error {
	ctx = withBulk(ctx)
	b, end := e.k.volumeRange()
	err := e.store.Txn(ctx, func(tx Tx) error {
		kvs, err := tx.Scan(b, end, 1)
		if err == nil && len(kvs) > 0 {
			err = meta.ErrDatabaseNotEmpty
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("load into %s: %w", e.Name(), err)
	}
	if err := e.restore(ctx, r); err != nil {
		if cerr := e.wipe(context.WithoutCancel(ctx)); cerr != nil {
			return fmt.Errorf("load into %s: %w (and removing what was written failed: %v)", e.Name(), err, cerr)
		}
		return fmt.Errorf("load into %s: %w", e.Name(), err)
	}
	return nil
}

// batch collects blind writes and commits them in transactions of at
// most limit puts. Up to parallel transactions commit in the background
// while the next batch is read and encoded; as they write distinct keys
// blindly, their order does not matter.
type batch struct {
	ctx      context.Context
	store    Store
	limit    int
	parallel int
	keys     [][]byte
	vals     [][]byte
	size     int
	inflight []chan error
}

// commitAttempts is how often a load sends a batch whose commit timed out.
const commitAttempts = 3

// batchBytes bounds a batch's size as well: xattr values may reach 64 KiB,
// and stores limit a transaction's bytes (etcd's request, Badger's
// memtable share).
const batchBytes = 1 << 20

func (b *batch) put(key, value []byte) error {
	b.keys = append(b.keys, key)
	b.vals = append(b.vals, value)
	b.size += len(key) + len(value)
	if len(b.keys) >= b.limit || b.size >= batchBytes {
		return b.flush()
	}
	return nil
}

// flush starts committing what was put, once fewer than parallel
// commits are in flight.
func (b *batch) flush() error {
	for len(b.inflight) >= max(b.parallel, 1) {
		err := <-b.inflight[0]
		b.inflight = b.inflight[1:]
		if err != nil {
			return err
		}
	}
	if len(b.keys) == 0 {
		return nil
	}
	keys, vals := b.keys, b.vals
	b.keys, b.vals, b.size = make([][]byte, 0, b.limit), make([][]byte, 0, b.limit), 0
	done := make(chan error, 1)
	b.inflight = append(b.inflight, done)
	go func() {
		var err error
		// Blind puts may be repeated: a commit that timed out (and may
		// have been carried out or not) is sent again.
		for range commitAttempts {
			err = b.store.Txn(b.ctx, func(tx Tx) error {
				for i, k := range keys {
					tx.Put(k, vals[i])
				}
				return nil
			})
			if !errors.Is(err, meta.ErrUnavailable) {
				break
			}
		}
		done <- err
	}()
	return nil
}

// wait waits for every commit in flight.
func (b *batch) wait() error {
	var errs []error
	for _, done := range b.inflight {
		errs = append(errs, <-done)
	}
	b.inflight = nil
	return errors.Join(errs...)
}

// sync commits everything put so far.
func (b *batch) sync() error {
	if err := b.flush(); err != nil {
		return err
	}
	return b.wait()
}

func (e *Engine) restore(ctx context.Context, r meta.DumpReader) error {
	if l, ok := e.store.(sortedLoader); ok {
		return e.restoreSorted(ctx, r, l)
	}
	limit := 2048
	if l, ok := e.store.(batchLimiter); ok {
		limit = l.maxWrites()
	}
	parallel := 1
	if p, ok := e.store.(parallelCommitter); ok {
		parallel = p.parallelCommits()
	}
	out := &batch{ctx: ctx, store: e.store, limit: limit, parallel: parallel}
	defer out.wait()
	k := e.k
	tally := meta.NewRestoreTally()
	firstRef := func(s meta.Slice) error { return out.put(k.ref(s.ID), u64(1)) }
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if err := tally.Record(rec, firstRef); err != nil {
			return err
		}
		key, value, err := k.recordPair(rec)
		if err != nil {
			return err
		}
		if err := out.put(key, value); err != nil {
			return err
		}
	}
	err := tally.Shared(func(s meta.SharedSlice) error { return out.put(k.ref(s.ID), u64(s.Refs)) })
	if err != nil {
		return err
	}
	return e.restoreSettings(out, r.Header(), tally.Usage())
}

// recordPair is the key and value a load writes for rec.
func (k keys) recordPair(rec *meta.DumpRecord) (key, value []byte, err error) {
	switch rec.Kind {
	case meta.DumpInode:
		return k.attr(rec.Ino), encodeAttr(&rec.Attr), nil
	case meta.DumpEntry:
		return k.entry(rec.Ino, rec.Name), encodeEntry(rec.Type, rec.Child), nil
	case meta.DumpSymlink:
		return k.symlink(rec.Ino), []byte(rec.Target), nil
	case meta.DumpXattr:
		return k.xattr(rec.Ino, rec.Name), encodeXattr(rec.Value), nil
	case meta.DumpChunk:
		return k.chunk(rec.Ino, rec.Index), meta.EncodeSliceRecords(rec.Slices), nil
	case meta.DumpDeadSlice:
		return k.dead(rec.Slice.ID), u32(rec.Slice.Size), nil
	}
	return nil, nil, fmt.Errorf("unknown dump record kind %d", rec.Kind)
}

// restoreSettings writes, once everything else is durable, the usage and
// counters, and then the volume's settings: until they are written the
// database holds no volume, so a load interrupted before never leaves one
// that mounts.
func (e *Engine) restoreSettings(out *batch, h meta.DumpHeader, total meta.Usage) error {
	k := e.k
	usage := usageDelta{space: int64(total.Space), inodes: int64(total.Inodes)}
	settings, err := json.Marshal(h.Format)
	if err != nil {
		return fmt.Errorf("encode volume settings: %w", err)
	}
	for _, p := range [][2][]byte{
		{k.usage(0), encodeUsage(usage)},
		{k.counter(counterInode), u64(h.NextInode)},
		{k.counter(counterSlice), u64(h.NextSlice)},
	} {
		if err := out.put(p[0], p[1]); err != nil {
			return err
		}
	}
	if err := out.sync(); err != nil {
		return err
	}
	if err := out.put(k.format(), settings); err != nil {
		return err
	}
	if err := out.sync(); err != nil {
		return err
	}
	e.setFormat(h.Format)
	return nil
}

// wipe deletes every key of the volume, in bounded transactions.
func (e *Engine) wipe(ctx context.Context) error {
	limit := 2048
	if l, ok := e.store.(batchLimiter); ok {
		limit = l.maxWrites()
	}
	b, end := e.k.volumeRange()
	for {
		n := 0
		err := e.store.Txn(ctx, func(tx Tx) error {
			// limit-1: on etcd the scanned range is one more compare.
			kvs, err := tx.Scan(b, end, limit-1)
			n = len(kvs)
			for _, kv := range kvs {
				tx.Delete(kv.Key)
			}
			return err
		})
		if errors.Is(err, ErrTxnConflict) {
			continue
		}
		if err != nil || n == 0 {
			return err
		}
	}
}
