package meta

import (
	"context"
	"fmt"
)

// VolumeDumper returns the Dumper that moves a whole volume: the engine's
// own Dumper, plus the directory quotas and statistics, which each
// engine keeps through QuotaStore and DirStatStore rather than in its
// Dump. Every caller that copies a volume out or into a database ('cairn
// dump', 'cairn load', the metadata backups, a migration) uses it;
// callers that only walk the tree (fsck, gc) use the engine's Dumper and
// never see DumpQuota or DumpDirStat.
//
// Dump writes the engine's snapshot, then a DumpDirStat record per
// directory that has statistics and a DumpQuota record per quota, read
// right after the snapshot: the statistics are as current as the
// database (at most one DirStatsInterval behind the live clients), and a
// quota's usage is the one recorded then. An engine without the stores
// writes none.
//
// Restore passes every other record to the engine's Restore and sets
// these aside (one small entry per directory), then writes them through
// the stores once the volume is in. A dump that holds a quota cannot go
// into an engine that keeps none: the load fails before the volume's
// settings are written. Statistics are dropped on such an engine (fsck
// --repair recounts them where there is a store).
func VolumeDumper(e Engine) (Dumper, bool) {
	d, ok := Capability[Dumper](e)
	if !ok {
		return nil, false
	}
	v := &volumeDumper{engine: d}
	v.stats, _ = Capability[DirStatStore](e)
	v.quotas, _ = Capability[QuotaStore](e)
	v.name = e.Name()
	return v, true
}

type volumeDumper struct {
	engine Dumper
	stats  DirStatStore // nil: the engine keeps none
	quotas QuotaStore   // nil: the engine keeps none
	name   string
}

func (v *volumeDumper) Dump(ctx context.Context, w DumpWriter) error {
	if err := v.engine.Dump(ctx, w); err != nil {
		return err
	}
	if v.stats != nil {
		stats, err := v.stats.AllDirStats(ctx)
		if err != nil {
			return fmt.Errorf("read the directory statistics: %w", err)
		}
		for dir, s := range stats {
			if err := w.Record(&DumpRecord{Kind: DumpDirStat, Ino: dir, DirStat: s}); err != nil {
				return err
			}
		}
	}
	if v.quotas != nil && v.stats != nil {
		quotas, err := v.quotas.Quotas(ctx)
		if err != nil {
			return fmt.Errorf("read the directory quotas: %w", err)
		}
		for dir, q := range quotas {
			if err := w.Record(&DumpRecord{Kind: DumpQuota, Ino: dir, Quota: q}); err != nil {
				return err
			}
		}
	}
	return nil
}

func (v *volumeDumper) Restore(ctx context.Context, r DumpReader) error {
	if err := CheckVersion(r.Header().Format); err != nil {
		return fmt.Errorf("the dump: %w", err)
	}
	aside := &asideReader{DumpReader: r, owner: v, stats: map[Ino]DirStat{}, quotas: map[Ino]Quota{}}
	if err := v.engine.Restore(ctx, aside); err != nil {
		return err
	}
	if v.stats != nil && len(aside.stats) > 0 {
		if err := v.stats.SetDirStats(ctx, aside.stats, nil); err != nil {
			return fmt.Errorf("write the directory statistics: %w", err)
		}
	}
	for dir, q := range aside.quotas {
		if err := v.quotas.SetQuota(ctx, dir, q); err != nil {
			return fmt.Errorf("write the quota of directory %d: %w", dir, err)
		}
	}
	return nil
}

// asideReader hands the engine's Restore every record but the quotas
// and statistics, which it keeps.
type asideReader struct {
	DumpReader
	owner  *volumeDumper
	stats  map[Ino]DirStat
	quotas map[Ino]Quota
}

func (a *asideReader) Next() (*DumpRecord, error) {
	for {
		rec, err := a.DumpReader.Next()
		if err != nil {
			return rec, err
		}
		switch rec.Kind {
		case DumpDirStat:
			if a.owner.stats != nil {
				a.stats[rec.Ino] = rec.DirStat
			}
		case DumpQuota:
			if a.owner.quotas == nil || a.owner.stats == nil {
				return nil, fmt.Errorf("the dump holds a quota on directory %d, but the %s engine keeps no directory quotas: %w", rec.Ino, a.owner.name, ErrNotSupported)
			}
			a.quotas[rec.Ino] = rec.Quota
		default:
			return rec, nil
		}
	}
}
