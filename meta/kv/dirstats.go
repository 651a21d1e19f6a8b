package kv

import (
	"context"
	"fmt"
	"maps"

	"cairn/meta"
)

var _ meta.DirStatStore = (*Engine)(nil)

// tagDirStat keys a directory's statistics (meta.DirStatStore):
// T<ino> → space and inodes (2 × int64, as a usage shard).
const tagDirStat = 'T'

// dirStatBatch is how many directories one transaction changes: etcd
// allows 128 operations in one, and each directory is a read and a write.
const dirStatBatch = 50

func (k keys) dirStat(ino meta.Ino) []byte { return k.key(tagDirStat, u64(uint64(ino))) }

// AddDirStats adds the deltas and forgets the removed directories' statistics
// (see meta.DirStatStore), in transactions of up to dirStatBatch
// directories: each directory's change is atomic, the whole call is not,
// and a marked call sent again skips the transactions written before.
// The mark's record is a statistics key (above every inode number).
func (e *Engine) AddDirStats(ctx context.Context, deltas map[meta.Ino]meta.DirStat, removed []meta.Ino, mark meta.FlushMark) error {
	return e.changeDirStats(ctx, deltas, removed, true, mark)
}

// SetDirStats replaces statistics, see meta.DirStatStore.
func (e *Engine) SetDirStats(ctx context.Context, stats map[meta.Ino]meta.DirStat, removed []meta.Ino) error {
	return e.changeDirStats(ctx, stats, removed, false, meta.FlushMark{})
}

func (e *Engine) changeDirStats(ctx context.Context, stats map[meta.Ino]meta.DirStat, removed []meta.Ino, add bool, mark meta.FlushMark) error {
	err := inDirBatches(ctx, e, stats, dirStatBatch, func(t *txn, part uint64, batch []meta.Ino) error {
		keys := make([][]byte, len(batch))
		for i, dir := range batch {
			keys[i] = t.k.dirStat(dir)
		}
		if add {
			if mark.Key != 0 {
				keys = append(keys, t.k.dirStat(mark.Key))
			}
			if err := t.prefetch(keys...); err != nil {
				return err
			}
		}
		if write, err := markBatch(t, mark, part); !write || err != nil {
			return err
		}
		for i, dir := range batch {
			var cur usageDelta
			if add {
				v, err := t.get(keys[i])
				if err != nil {
					return err
				}
				if cur, err = decodeUsage(v); err != nil {
					return fmt.Errorf("statistics of directory %d: %w", dir, err)
				}
			}
			cur.space += stats[dir].Space
			cur.inodes += stats[dir].Inodes
			t.put(keys[i], encodeUsage(cur))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("change directory statistics: %w", err)
	}
	// Forgetting is the same whether done once or twice: not marked.
	for len(removed) > 0 {
		batch := removed[:min(len(removed), 2*dirStatBatch)]
		removed = removed[len(batch):]
		err := e.txn(ctx, func(t *txn) error {
			for _, dir := range batch {
				t.del(t.k.dirStat(dir))
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("forget directory statistics: %w", err)
		}
	}
	return nil
}

// DirStats reads statistics, see meta.DirStatStore.
func (e *Engine) DirStats(ctx context.Context, dirs []meta.Ino) (map[meta.Ino]meta.DirStat, error) {
	out := make(map[meta.Ino]meta.DirStat, len(dirs))
	for len(dirs) > 0 {
		batch := dirs[:min(len(dirs), 2*dirStatBatch)]
		dirs = dirs[len(batch):]
		err := e.txn(ctx, func(t *txn) error {
			keys := make([][]byte, len(batch))
			for i, dir := range batch {
				keys[i] = t.k.dirStat(dir)
			}
			if err := t.prefetch(keys...); err != nil {
				return err
			}
			for i, dir := range batch {
				v, err := t.get(keys[i])
				if err != nil || v == nil {
					if err != nil {
						return err
					}
					continue
				}
				u, err := decodeUsage(v)
				if err != nil {
					return fmt.Errorf("statistics of directory %d: %w", dir, err)
				}
				out[dir] = meta.DirStat{Space: u.space, Inodes: u.inodes}
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("read directory statistics: %w", err)
		}
	}
	return out, nil
}

// AllDirStats lists every directory's statistics, see meta.DirStatStore;
// the flush marks' records are left out.
func (e *Engine) AllDirStats(ctx context.Context) (map[meta.Ino]meta.DirStat, error) {
	all, err := scanDirRecords(ctx, e, tagDirStat, "directory statistics", func(v []byte) (meta.DirStat, error) {
		u, err := decodeUsage(v)
		return meta.DirStat{Space: u.space, Inodes: u.inodes}, err
	})
	maps.DeleteFunc(all, func(ino meta.Ino, _ meta.DirStat) bool { return meta.IsFlushMark(ino) })
	return all, err
}
