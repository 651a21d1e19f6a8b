package kv

import (
	"context"
	"fmt"

	"cairn/meta"
)

var _ meta.OrphanLister = (*Engine)(nil)

// Orphans lists the orphans of every session, see meta.OrphanLister.
func (e *Engine) Orphans(ctx context.Context) ([]meta.Ino, error) {
	var inos []meta.Ino
	err := e.txn(ctx, func(t *txn) error {
		inos = inos[:0]
		kvs, err := t.scanAll(t.k.key(tagOrphan), t.k.key(tagOrphan+1), 1000)
		for _, kv := range kvs {
			inos = append(inos, meta.Ino(be.Uint64(t.k.suffix(kv.Key, 8))))
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list orphans: %w", err)
	}
	return inos, nil
}
