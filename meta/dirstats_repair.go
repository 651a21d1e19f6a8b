package meta

import (
	"context"
	"errors"
)

// DirStatsRepair is what RepairDirStats changed.
type DirStatsRepair struct {
	Directories int // directories whose statistics were wrong or missing
	Forgotten   int // statistics of directories no longer in the tree
	Quotas      int // quotas whose usage was wrong
}

// RepairDirStats counts the tree under dir in full and writes every
// directory's statistics that differ, and the usage of every quota in
// the tree that differs; from the root, it also forgets the statistics
// of directories that no longer exist. Run it on a quiet volume: a
// client's unflushed sums written after it count twice. A no-op on an
// engine without statistics.
func RepairDirStats(ctx context.Context, e Engine, dir Ino) (DirStatsRepair, error) {
	var done DirStatsRepair
	stats, ok := Capability[DirStatStore](e)
	if !ok {
		return done, nil
	}
	tree, err := CountTree(ctx, e, dir)
	if err != nil {
		return done, err
	}
	all, err := stats.AllDirStats(ctx)
	if err != nil {
		return done, err
	}
	wrong := map[Ino]DirStat{}
	for d, want := range tree {
		if all[d] != want {
			wrong[d] = want
		}
	}
	var gone []Ino
	if dir == RootIno {
		for d := range all {
			if _, ok := tree[d]; !ok {
				gone = append(gone, d)
			}
		}
	}
	if len(wrong) > 0 || len(gone) > 0 {
		if err := stats.SetDirStats(ctx, wrong, gone); err != nil {
			return done, err
		}
	}
	done.Directories, done.Forgotten = len(wrong), len(gone)
	quotas, err := ListQuotas(ctx, e)
	if errors.Is(err, ErrNotSupported) {
		return done, nil
	}
	if err != nil {
		return done, err
	}
	for qd, q := range quotas {
		if _, in := tree[qd]; !in {
			continue
		}
		recorded, counted, err := CheckQuota(ctx, e, qd, false)
		if err != nil {
			return done, err
		}
		if recorded.Space != counted.Space || recorded.Inodes != counted.Inodes {
			q.Space, q.Inodes = counted.Space, counted.Inodes
			_, store, _ := quotaStores(e)
			if err := store.SetQuota(ctx, qd, q); err != nil {
				return done, err
			}
			done.Quotas++
		}
	}
	return done, nil
}
