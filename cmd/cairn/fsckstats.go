package main

import (
	"context"
	"fmt"
	"io"

	"cairn/meta"
)

// repairDirStats is fsck --repair's count of the directory statistics
// and quota usage under path (meta.RepairDirStats).
func repairDirStats(ctx context.Context, out io.Writer, e meta.Engine, path string) error {
	dir, err := meta.ResolvePath(ctx, e, path)
	if err != nil {
		return err
	}
	done, err := meta.RepairDirStats(ctx, e, dir)
	if err != nil {
		return fmt.Errorf("repair the directory statistics under %s: %w", path, err)
	}
	if done != (meta.DirStatsRepair{}) {
		fmt.Fprintf(out, "repaired the statistics of %d directories (forgot %d removed ones) and the usage of %d quotas\n",
			done.Directories, done.Forgotten, done.Quotas)
	}
	return nil
}
