package migrate

import (
	"context"
	"fmt"

	"cairn/meta"
)

// copyUsage makes dst's directory statistics and quotas (limits and
// usage) those of src. Neither is in the change log: clients flush
// statistics and set quotas through meta.Tracker's held stores, which
// the log does not follow, so what changed in them since the bulk copy
// is found here by comparing the two engines, with src paused, and only
// what differs is written. An engine without statistics or quotas on
// either side has nothing to copy (a bulk copy into it left them out).
func copyUsage(ctx context.Context, src, dst meta.Engine) error {
	if err := copyDirStats(ctx, src, dst); err != nil {
		return fmt.Errorf("copy the directory statistics: %w", err)
	}
	if err := copyQuotas(ctx, src, dst); err != nil {
		return fmt.Errorf("copy the quotas: %w", err)
	}
	return nil
}

func copyDirStats(ctx context.Context, src, dst meta.Engine) error {
	from, ok := meta.Capability[meta.DirStatStore](src)
	to, ok2 := meta.Capability[meta.DirStatStore](dst)
	if !ok || !ok2 {
		return nil
	}
	want, err := from.AllDirStats(ctx)
	if err != nil {
		return err
	}
	have, err := to.AllDirStats(ctx)
	if err != nil {
		return err
	}
	changed := map[meta.Ino]meta.DirStat{}
	for dir, s := range want {
		if h, ok := have[dir]; !ok || h != s {
			changed[dir] = s
		}
	}
	var gone []meta.Ino
	for dir := range have {
		if _, ok := want[dir]; !ok {
			gone = append(gone, dir)
		}
	}
	if len(changed) == 0 && len(gone) == 0 {
		return nil
	}
	return to.SetDirStats(ctx, changed, gone)
}

func copyQuotas(ctx context.Context, src, dst meta.Engine) error {
	from, ok := meta.Capability[meta.QuotaStore](src)
	to, ok2 := meta.Capability[meta.QuotaStore](dst)
	if !ok || !ok2 {
		return nil
	}
	want, err := from.Quotas(ctx)
	if err != nil {
		return err
	}
	have, err := to.Quotas(ctx)
	if err != nil {
		return err
	}
	for dir, q := range want {
		if h, ok := have[dir]; !ok || h != q {
			if err := to.SetQuota(ctx, dir, q); err != nil {
				return err
			}
		}
	}
	for dir := range have {
		if _, ok := want[dir]; !ok {
			if err := to.DeleteQuota(ctx, dir); err != nil {
				return err
			}
		}
	}
	return nil
}
