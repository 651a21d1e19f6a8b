package kv

import (
	"context"
	"fmt"
	"slices"

	"cairn/meta"
)

// The records kept per directory (statistics, quotas) share how they are
// changed in batches and listed.

// inDirBatches calls fn, each call in a transaction of its own, with the
// keys of m in ascending order, at most n at a time: each batch is
// atomic, the whole is not, and a failure after some batches were
// written says which with a *meta.PartialWrite.
func inDirBatches[T any](ctx context.Context, e *Engine, m map[meta.Ino]T, n int, fn func(t *txn, batch []meta.Ino) error) error {
	dirs := make([]meta.Ino, 0, len(m))
	for dir := range m {
		dirs = append(dirs, dir)
	}
	slices.Sort(dirs)
	var written []meta.Ino
	for len(dirs) > 0 {
		batch := dirs[:min(len(dirs), n)]
		dirs = dirs[len(batch):]
		if err := e.txn(ctx, func(t *txn) error { return fn(t, batch) }); err != nil {
			if len(written) > 0 {
				return &meta.PartialWrite{Written: written, Err: err}
			}
			return err
		}
		written = append(written, batch...)
	}
	return nil
}

// scanDirRecords reads every record under tag (tag<ino> → value),
// decoded with decode; what names them in errors.
func scanDirRecords[T any](ctx context.Context, e *Engine, tag byte, what string, decode func([]byte) (T, error)) (map[meta.Ino]T, error) {
	out := map[meta.Ino]T{}
	err := e.txn(ctx, func(t *txn) error {
		clear(out)
		kvs, err := t.scanAll(t.k.key(tag), t.k.key(tag+1), 1000)
		if err != nil {
			return err
		}
		for _, kv := range kvs {
			rest := t.k.suffix(kv.Key, 0)
			if len(rest) != 8 {
				return fmt.Errorf("corrupt %s key %q: %w", what, kv.Key, meta.ErrIO)
			}
			v, err := decode(kv.Value)
			if err != nil {
				return fmt.Errorf("%s of directory %d: %w", what, be.Uint64(rest), err)
			}
			out[meta.Ino(be.Uint64(rest))] = v
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", what, err)
	}
	return out, nil
}
