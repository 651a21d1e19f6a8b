package kv

import (
	"context"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// bulkLoader is implemented by stores that take a load's blind writes into
// an empty volume faster than through transactions. Nothing else may
// write to the volume meanwhile, so there is nothing to conflict with.
type bulkLoader interface {
	bulkLoad(ctx context.Context) loadSink
}

// loadSink receives a load's writes. put may keep key and value until
// sync; sync returns once everything put is durable; cancel drops what
// was not written yet.
type loadSink interface {
	put(key, value []byte) error
	sync() error
	cancel()
}

// restoreSink is where a load writes: the store's bulk path if it has
// one, transactions of blind puts otherwise.
func (e *Engine) restoreSink(ctx context.Context) loadSink {
	if l, ok := e.store.(bulkLoader); ok {
		return l.bulkLoad(ctx)
	}
	limit := 2048
	if l, ok := e.store.(batchLimiter); ok {
		limit = l.maxWrites()
	}
	return &batch{ctx: ctx, store: e.store, limit: limit}
}

func (b *batch) cancel() { b.wait() }

var _ bulkLoader = (*BadgerStore)(nil)

// bulkLoad writes through a Badger WriteBatch, which commits many
// transactions at once without tracking conflicts; sync flushes it and
// then syncs the database, so what it wrote is durable even with nosync.
func (s *BadgerStore) bulkLoad(ctx context.Context) loadSink {
	return &badgerLoad{s: s, wb: s.db.NewWriteBatch()}
}

type badgerLoad struct {
	s  *BadgerStore
	wb *badger.WriteBatch
}

func (l *badgerLoad) put(key, value []byte) error {
	if err := l.wb.Set(key, value); err != nil {
		return fmt.Errorf("badger load: %w", err)
	}
	return nil
}

func (l *badgerLoad) sync() error {
	if err := l.wb.Flush(); err != nil {
		return fmt.Errorf("badger load: %w", err)
	}
	l.wb = l.s.db.NewWriteBatch()
	if err := l.s.db.Sync(); err != nil {
		return fmt.Errorf("badger load: sync: %w", err)
	}
	return nil
}

func (l *badgerLoad) cancel() { l.wb.Cancel() }
