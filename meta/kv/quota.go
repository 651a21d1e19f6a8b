package kv

import (
	"context"
	"encoding/binary"
	"fmt"

	"cairn/meta"
)

var _ meta.QuotaStore = (*Engine)(nil)

// tagQuota keys a directory's quota (meta.QuotaStore): V<ino> → limits
// and usage (4 × int64).
const tagQuota = 'V'

func (k keys) quota(ino meta.Ino) []byte { return k.key(tagQuota, u64(uint64(ino))) }

func encodeQuota(q meta.Quota) []byte {
	b := make([]byte, 0, 32)
	for _, v := range []int64{q.MaxSpace, q.MaxInodes, q.Space, q.Inodes} {
		b = binary.BigEndian.AppendUint64(b, uint64(v))
	}
	return b
}

func decodeQuota(b []byte) (meta.Quota, error) {
	if len(b) != 32 {
		return meta.Quota{}, fmt.Errorf("corrupt quota record: %d bytes: %w", len(b), meta.ErrIO)
	}
	v := func(i int) int64 { return int64(binary.BigEndian.Uint64(b[8*i:])) }
	return meta.Quota{MaxSpace: v(0), MaxInodes: v(1), Space: v(2), Inodes: v(3)}, nil
}

// SetQuota creates or replaces a quota, see meta.QuotaStore.
func (e *Engine) SetQuota(ctx context.Context, dir meta.Ino, q meta.Quota) error {
	err := e.txn(ctx, func(t *txn) error {
		t.put(t.k.quota(dir), encodeQuota(q))
		return nil
	})
	if err != nil {
		return fmt.Errorf("set the quota of directory %d: %w", dir, err)
	}
	return nil
}

// DeleteQuota removes a quota, see meta.QuotaStore.
func (e *Engine) DeleteQuota(ctx context.Context, dir meta.Ino) error {
	err := e.txn(ctx, func(t *txn) error {
		v, err := t.get(t.k.quota(dir))
		if err != nil {
			return err
		}
		if v == nil {
			return meta.ErrNotFound
		}
		t.del(t.k.quota(dir))
		return nil
	})
	if err != nil {
		return fmt.Errorf("delete the quota of directory %d: %w", dir, err)
	}
	return nil
}

// Quotas lists every quota, see meta.QuotaStore.
func (e *Engine) Quotas(ctx context.Context) (map[meta.Ino]meta.Quota, error) {
	return scanDirRecords(ctx, e, tagQuota, "quotas", decodeQuota)
}

// AddQuotaUsage adds to the quotas' usage, see meta.QuotaStore, in
// transactions of up to dirStatBatch quotas, each read in one request
// (with the mark's record, kept as AddDirStats keeps it).
func (e *Engine) AddQuotaUsage(ctx context.Context, deltas map[meta.Ino]meta.DirStat, mark meta.FlushMark) error {
	err := inDirBatches(ctx, e, deltas, dirStatBatch, func(t *txn, part uint64, batch []meta.Ino) error {
		keys := make([][]byte, len(batch), len(batch)+1)
		for i, dir := range batch {
			keys[i] = t.k.quota(dir)
		}
		if mark.Key != 0 {
			keys = append(keys, t.k.dirStat(mark.Key))
		}
		if err := t.prefetch(keys...); err != nil {
			return err
		}
		if write, err := markBatch(t, mark, part); !write || err != nil {
			return err
		}
		for i, dir := range batch {
			v, err := t.get(keys[i])
			if err != nil {
				return err
			}
			if v == nil {
				continue
			}
			q, err := decodeQuota(v)
			if err != nil {
				return err
			}
			q.Space += deltas[dir].Space
			q.Inodes += deltas[dir].Inodes
			t.put(keys[i], encodeQuota(q))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("add quota usage: %w", err)
	}
	return nil
}
