package meta

import "context"

// The directory statistics and quotas of the Tracker's current engine,
// so that a Client that captured them at its start reaches the engine it
// moved to. Their writes are held by a pause but not recorded in a
// migration's change log: the migrator copies statistics and quotas with
// the volume. An engine
// without them answers ErrNotSupported.

func dirStatStoreOf(e Engine) (DirStatStore, error) {
	s, ok := Capability[DirStatStore](e)
	if !ok {
		return nil, ErrNotSupported
	}
	return s, nil
}

func quotaStoreOf(e Engine) (QuotaStore, error) {
	s, ok := Capability[QuotaStore](e)
	if !ok {
		return nil, ErrNotSupported
	}
	return s, nil
}

// heldStore runs a write of a store that a pause holds (entryHeld), or
// refuses while paused (entryFlush).
func heldStore[S any](t *Tracker, ctx context.Context, how entry, store func(Engine) (S, error), call func(s S) error) error {
	m, err := t.enter(ctx, how, nil)
	if err != nil {
		return err
	}
	defer t.end(ctx, m)
	s, err := store(m.engine)
	if err != nil {
		return err
	}
	return call(s)
}

// readStore runs a read of a store, counted as a read (Tracker.read).
func readStore[S, R any](t *Tracker, store func(Engine) (S, error), call func(s S) (R, error)) (R, error) {
	e := t.read()
	defer e.done()
	s, err := store(e.engine)
	if err != nil {
		var none R
		return none, err
	}
	return call(s)
}

func (t *Tracker) AddDirStats(ctx context.Context, deltas map[Ino]DirStat, removed []Ino, mark FlushMark) error {
	return heldStore(t, ctx, entryFlush, dirStatStoreOf, func(s DirStatStore) error { return s.AddDirStats(ctx, deltas, removed, mark) })
}

func (t *Tracker) SetDirStats(ctx context.Context, stats map[Ino]DirStat, removed []Ino) error {
	return heldStore(t, ctx, entryHeld, dirStatStoreOf, func(s DirStatStore) error { return s.SetDirStats(ctx, stats, removed) })
}

func (t *Tracker) DirStats(ctx context.Context, dirs []Ino) (map[Ino]DirStat, error) {
	return readStore(t, dirStatStoreOf, func(s DirStatStore) (map[Ino]DirStat, error) { return s.DirStats(ctx, dirs) })
}

func (t *Tracker) AllDirStats(ctx context.Context) (map[Ino]DirStat, error) {
	return readStore(t, dirStatStoreOf, func(s DirStatStore) (map[Ino]DirStat, error) { return s.AllDirStats(ctx) })
}

func (t *Tracker) SetQuota(ctx context.Context, dir Ino, q Quota) error {
	return heldStore(t, ctx, entryHeld, quotaStoreOf, func(s QuotaStore) error { return s.SetQuota(ctx, dir, q) })
}

func (t *Tracker) DeleteQuota(ctx context.Context, dir Ino) error {
	return heldStore(t, ctx, entryHeld, quotaStoreOf, func(s QuotaStore) error { return s.DeleteQuota(ctx, dir) })
}

func (t *Tracker) AddQuotaUsage(ctx context.Context, deltas map[Ino]DirStat, mark FlushMark) error {
	return heldStore(t, ctx, entryFlush, quotaStoreOf, func(s QuotaStore) error { return s.AddQuotaUsage(ctx, deltas, mark) })
}

func (t *Tracker) Quotas(ctx context.Context) (map[Ino]Quota, error) {
	return readStore(t, quotaStoreOf, func(s QuotaStore) (map[Ino]Quota, error) { return s.Quotas(ctx) })
}

var (
	_ DirStatStore = (*Tracker)(nil)
	_ QuotaStore   = (*Tracker)(nil)
)
