package kv

import (
	"bytes"
	"context"
	"fmt"

	"cairn/meta"
)

var _ meta.Destroyer = (*Engine)(nil)

// destroyBatch is how many keys one transaction of Destroy deletes: below
// etcd's default limit of 128 operations per transaction.
const destroyBatch = 100

// Destroy implements meta.Destroyer: it deletes the volume's key range
// (every key starts with its prefix, then a tag byte below 0xff) a batch
// per transaction, the settings key last.
func (e *Engine) Destroy(ctx context.Context) error {
	// Bulk: no application waits, and on etcd a bulk commit carries no
	// mark, which would put the scratch key back behind the deletes
	// (etcdsettle.go).
	ctx = withBulk(ctx)
	format := e.k.format()
	begin := append(append([]byte{}, e.k.prefix...), 0)
	end := append(append([]byte{}, e.k.prefix...), 0xff)
	for {
		var last []byte
		err := e.txn(ctx, func(t *txn) error {
			last = nil
			pairs, err := t.Scan(begin, end, destroyBatch)
			if err != nil {
				return err
			}
			for _, p := range pairs {
				if !bytes.Equal(p.Key, format) {
					t.Delete(p.Key)
				}
				last = p.Key
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("destroy the volume on %s: %w", e.Name(), err)
		}
		if last == nil {
			break
		}
		begin = after(last)
	}
	err := e.txn(ctx, func(t *txn) error {
		t.Delete(format)
		return nil
	})
	if err != nil {
		return fmt.Errorf("destroy the settings of the volume on %s: %w", e.Name(), err)
	}
	e.mu.Lock()
	e.format = nil
	e.mu.Unlock()
	return nil
}
