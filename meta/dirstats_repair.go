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
	if _, ok := Capability[DirStatStore](e); !ok {
		return DirStatsRepair{}, nil
	}
	tree, err := CountTree(ctx, e, dir)
	if err != nil {
		return DirStatsRepair{}, err
	}
	return writeCount(ctx, e, tree)
}

// writeCount writes what tree counted where it differs from what is
// recorded: every directory's statistics, and the usage of every quota
// on a directory of the tree, all from the one count; from the root it
// also forgets the statistics of directories no longer in the tree. It
// is where fsck --repair and quota check --repair write.
func writeCount(ctx context.Context, e Engine, tree *TreeCount) (DirStatsRepair, error) {
	var done DirStatsRepair
	stats, ok := Capability[DirStatStore](e)
	if !ok {
		return done, nil
	}
	all, err := stats.AllDirStats(ctx)
	if err != nil {
		return done, err
	}
	wrong := map[Ino]DirStat{}
	for d, want := range tree.Stats {
		if all[d] != want {
			wrong[d] = want
		}
	}
	var gone []Ino
	if tree.Root == RootIno {
		for d := range all {
			if _, ok := tree.Stats[d]; !ok {
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
	_, store, _ := quotaStores(e)
	usage := tree.Usage()
	for qd, q := range quotas {
		counted, in := usage[qd]
		if !in || (q.Space == counted.Space && q.Inodes == counted.Inodes) {
			continue
		}
		q.Space, q.Inodes = counted.Space, counted.Inodes
		if err := store.SetQuota(ctx, qd, q); err != nil {
			return done, err
		}
		done.Quotas++
	}
	return done, nil
}
