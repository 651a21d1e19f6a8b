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
// keys of m in ascending order, at most n at a time, and the batch's
// number (0, 1, ...): each batch is atomic, the whole is not. The same m
// is cut into the same batches every time, which lets a call sent again
// skip the batches written the first time (see markBatch).
func inDirBatches[T any](ctx context.Context, e *Engine, m map[meta.Ino]T, n int, fn func(t *txn, part uint64, batch []meta.Ino) error) error {
	dirs := make([]meta.Ino, 0, len(m))
	for dir := range m {
		dirs = append(dirs, dir)
	}
	slices.Sort(dirs)
	for part := uint64(0); len(dirs) > 0; part++ {
		batch := dirs[:min(len(dirs), n)]
		dirs = dirs[len(batch):]
		if err := e.txn(ctx, func(t *txn) error { return fn(t, part, batch) }); err != nil {
			return err
		}
	}
	return nil
}

// markParts is how many transactions one marked call may take: each part
// stores Seq<<markParts | part in the mark's record.
const markParts = 20

// markBatch reads, in t, the record of mark (meta.FlushMark) and reports
// whether part of the marked call is to be written; when it is, it
// stores the part's number in the record with the changes. A zero mark
// writes every part.
func markBatch(t *txn, mark meta.FlushMark, part uint64) (bool, error) {
	if mark.Key == 0 {
		return true, nil
	}
	if part >= 1<<markParts {
		return false, fmt.Errorf("a marked call of more than %d transactions", 1<<markParts)
	}
	key := t.k.dirStat(mark.Key)
	v, err := t.get(key)
	if err != nil {
		return false, err
	}
	cur, err := decodeUsage(v)
	if err != nil {
		return false, fmt.Errorf("flush mark %d: %w", mark.Key, err)
	}
	this := int64(mark.Seq<<markParts | part)
	if cur.inodes >= this {
		return false, nil
	}
	t.put(key, encodeUsage(usageDelta{inodes: this}))
	return true, nil
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
