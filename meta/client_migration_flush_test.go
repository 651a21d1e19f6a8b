package meta_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"cairn/internal/testenv"
	"cairn/meta"
	"cairn/meta/kv"
	"cairn/meta/metatest"
	"cairn/migrate"
)

// answerless is an engine whose statistics writes (while loseStats is
// set) and quota usage writes (loseQuotas) are applied and then answered
// with an error, as when the answer is lost on its way back.
type answerless struct {
	meta.Engine
	stats                 meta.DirStatStore
	quotas                meta.QuotaStore
	loseStats, loseQuotas atomic.Bool
}

var errLostAnswer = errors.New("test: the answer was lost")

func newAnswerless(e meta.Engine) *answerless {
	a := &answerless{Engine: e}
	a.stats, _ = meta.Capability[meta.DirStatStore](e)
	a.quotas, _ = meta.Capability[meta.QuotaStore](e)
	return a
}

func (a *answerless) Unwrap() meta.Engine { return a.Engine }

// answer is the answer to a write whose error was err.
func answer(err error, lose *atomic.Bool) error {
	if err == nil && lose.Load() {
		return errLostAnswer
	}
	return err
}

func (a *answerless) AddDirStats(ctx context.Context, deltas map[meta.Ino]meta.DirStat, removed []meta.Ino, mark meta.FlushMark) error {
	return answer(a.stats.AddDirStats(ctx, deltas, removed, mark), &a.loseStats)
}

func (a *answerless) DirStats(ctx context.Context, dirs []meta.Ino) (map[meta.Ino]meta.DirStat, error) {
	return a.stats.DirStats(ctx, dirs)
}

func (a *answerless) SetDirStats(ctx context.Context, stats map[meta.Ino]meta.DirStat, removed []meta.Ino) error {
	return a.stats.SetDirStats(ctx, stats, removed)
}

func (a *answerless) AllDirStats(ctx context.Context) (map[meta.Ino]meta.DirStat, error) {
	return a.stats.AllDirStats(ctx)
}

func (a *answerless) SetQuota(ctx context.Context, dir meta.Ino, q meta.Quota) error {
	return a.quotas.SetQuota(ctx, dir, q)
}

func (a *answerless) DeleteQuota(ctx context.Context, dir meta.Ino) error {
	return a.quotas.DeleteQuota(ctx, dir)
}

func (a *answerless) Quotas(ctx context.Context) (map[meta.Ino]meta.Quota, error) {
	return a.quotas.Quotas(ctx)
}

func (a *answerless) AddQuotaUsage(ctx context.Context, deltas map[meta.Ino]meta.DirStat, mark meta.FlushMark) error {
	return answer(a.quotas.AddQuotaUsage(ctx, deltas, mark), &a.loseQuotas)
}

// TestMigrationFlushInDoubt: a client whose statistics and quota usage
// flushes were applied to SRC but not answered (in doubt) when the
// migration pauses writes them to SRC, with their marks, before it
// acknowledges the pause; the switch copies SRC's statistics to DST, and
// nothing is sent to DST a second time. DST's statistics and the quota's
// usage then equal a full count.
func TestMigrationFlushInDoubt(t *testing.T) {
	ctx := t.Context()
	var lossy []*answerless
	m, o := newMigration(t, testenv.Postgres(t), "flush_doubt", func(e meta.Engine) meta.Engine {
		a := newAnswerless(e)
		lossy = append(lossy, a)
		return a
	})
	one := m.clients[0]
	dir, _, err := one.Mknod(ctx, meta.RootCred, meta.RootIno, "q", meta.TypeDirectory, 0o755, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := one.SetQuota(ctx, dir, 0, 1000); err != nil {
		t.Fatal(err)
	}
	if err := one.FlushDirStats(ctx); err != nil {
		t.Fatal(err)
	}
	m.setPhase(meta.MigrationTracking, time.Hour)
	m.waitAcked(meta.MigrationAckTracking)
	if m.position, err = m.log.ChangesEnd(ctx); err != nil {
		t.Fatal(err)
	}
	if err := migrate.BulkCopy(ctx, m.src, m.dst, nil); err != nil {
		t.Fatal(err)
	}
	// After the bulk copy: creates whose sums reach SRC unanswered, the
	// quota usage's first, then the statistics' too.
	create := func(names ...string) {
		for _, name := range names {
			if _, _, err := one.Mknod(ctx, meta.RootCred, dir, name, meta.TypeFile, 0o644, 0, ""); err != nil {
				t.Fatal(err)
			}
		}
	}
	lossy[0].loseQuotas.Store(true)
	create("a", "b", "c")
	if err := one.FlushDirStats(ctx); !errors.Is(err, errLostAnswer) {
		t.Fatalf("a flush whose quota usage answer is lost: %v", err)
	}
	lossy[0].loseStats.Store(true)
	create("d", "e")
	if err := one.FlushDirStats(ctx); !errors.Is(err, errLostAnswer) {
		t.Fatalf("a flush whose statistics answer is lost: %v", err)
	}
	if m.position, _, err = migrate.CatchUpRound(ctx, m.src, m.dst, m.log, m.position); err != nil {
		t.Fatal(err)
	}
	m.setPhase(meta.MigrationPausing, time.Hour)
	// The batches in doubt cannot be written yet: no acknowledgement.
	time.Sleep(300 * time.Millisecond)
	if m.acked(meta.MigrationAckPaused) {
		t.Fatal("the pause was acknowledged with batches in doubt")
	}
	lossy[0].loseStats.Store(false)
	lossy[0].loseQuotas.Store(false)
	m.waitAcked(meta.MigrationAckPaused)
	m.finish()
	testenv.Eventually(t, "switched", func() bool { return m.acked(meta.MigrationAckSwitched) && o.opened.Load() == 2 })
	if err := one.FlushDirStats(ctx); err != nil {
		t.Fatalf("flush on DST: %v", err)
	}
	for _, wrong := range append(metatest.StatsMiscounted(t, m.dst), metatest.QuotaMiscounted(t, m.dst, dir)...) {
		t.Error(wrong)
	}
}

// TestFlushDirStatsWaitsOutAPause: while a migration's pause refuses
// flushes, FlushDirStats waits on the Tracker for the pause to end (one
// try while paused, not one every few milliseconds) and then writes what
// it holds; it returns the context's error when that ends first, and
// ErrIO once the pause refuses mutations (a migration that cannot
// finish) instead of trying again until its context ends.
func TestFlushDirStatsWaitsOutAPause(t *testing.T) {
	cases := []struct {
		name string
		end  func(tr *meta.Tracker, cancel context.CancelFunc)
		want error
	}{
		{"resumed", func(tr *meta.Tracker, _ context.CancelFunc) { tr.Resume() }, nil},
		{"context ends", func(_ *meta.Tracker, cancel context.CancelFunc) { cancel() }, context.Canceled},
		{"refused", func(tr *meta.Tracker, _ context.CancelFunc) { tr.Refuse(errors.New("test: the migration failed")) }, meta.ErrIO},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			eng := kv.OpenMem()
			if err := eng.Init(ctx, meta.Format{Name: "t", BlockSize: 4 << 20, Version: meta.FormatVersion}, false); err != nil {
				t.Fatal(err)
			}
			c := meta.NewClient(eng, meta.ClientConfig{})
			if err := c.Start(ctx); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				c.Close(ctx)
				eng.Close()
			})
			if !c.DirStatsOn() {
				t.Fatal("no statistics on the in-memory engine")
			}
			if _, _, err := c.Mknod(ctx, meta.RootCred, meta.RootIno, "f", meta.TypeFile, 0o644, 0, ""); err != nil {
				t.Fatal(err)
			}
			tr := c.MigrationTracker()
			if err := tr.Pause(ctx); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(tr.Resume) // before the client's Close
			tries := func() uint64 { return c.Metrics().Snapshot()["meta.flush_dir_stats"].Count }
			before := tries()
			flushCtx, cancel := context.WithCancel(ctx)
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- c.FlushDirStats(flushCtx) }()
			select {
			case err := <-done:
				t.Fatalf("FlushDirStats returned while paused: %v", err)
			case <-time.After(300 * time.Millisecond):
			}
			// One try by FlushDirStats, and at most one by the client's
			// own flush every DirStatsInterval.
			if n := tries() - before; n > 2 {
				t.Errorf("%d flush tries in 300 ms of pause: FlushDirStats tries again instead of waiting for the pause to end", n)
			}
			tc.end(tr, cancel)
			select {
			case err := <-done:
				if !errors.Is(err, tc.want) || (err == nil) != (tc.want == nil) {
					t.Fatalf("FlushDirStats: %v, want %v", err, tc.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("FlushDirStats did not return once the pause ended, was refused, or its context ended")
			}
			if tc.want != nil {
				return
			}
			got, err := eng.DirStats(ctx, []meta.Ino{meta.RootIno})
			if err != nil {
				t.Fatal(err)
			}
			if got[meta.RootIno].Inodes != 1 {
				t.Errorf("after the pause, the root's statistics hold %+v, want the file created before it", got[meta.RootIno])
			}
		})
	}
}
