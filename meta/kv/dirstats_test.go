package kv

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"cairn/meta"
)

// failingStore is a Store that fails the failAt-th transaction run after
// it is armed: before it writes anything, or (lost) after it committed,
// as when a commit's answer never comes back.
type failingStore struct {
	Store
	mu     sync.Mutex
	failAt int // 0: not armed
	lost   bool
	runs   int
}

var errInjected = errors.New("injected store failure")

func (s *failingStore) arm(failAt int, lost bool) {
	s.mu.Lock()
	s.failAt, s.lost, s.runs = failAt, lost, 0
	s.mu.Unlock()
}

func (s *failingStore) Txn(ctx context.Context, fn func(tx Tx) error) error {
	s.mu.Lock()
	s.runs++
	fail := s.failAt != 0 && s.runs == s.failAt
	if fail {
		s.failAt = 0
	}
	lost := s.lost
	s.mu.Unlock()
	if !fail {
		return s.Store.Txn(ctx, fn)
	}
	if lost {
		if err := s.Store.Txn(ctx, fn); err != nil {
			return err
		}
	}
	return errInjected
}

// TestDirStatsPartialFlushCountsOnce: a flush of directory statistics or
// quota usage that fails after some of its transactions were written
// (etcd's bounded transactions), or whose last transaction was applied
// but not answered, is sent again without adding anything twice (its
// FlushMark): after the retry every directory's statistics and every
// quota's usage equal a full count.
func TestDirStatsPartialFlushCountsOnce(t *testing.T) {
	ctx := context.Background()
	store := &failingStore{Store: NewMemStore()}
	e := New(store, "")
	defer e.Close()
	if err := e.Init(ctx, meta.Format{Name: "t", BlockSize: 4 << 20, Version: meta.FormatVersion}, false); err != nil {
		t.Fatal(err)
	}
	// Not started: no flush in the background, only the ones below.
	c := meta.NewClient(e, meta.ClientConfig{})
	const dirs = 3*dirStatBatch - 10
	var inos []meta.Ino
	for i := range dirs {
		dir, _, err := c.Mknod(ctx, meta.RootCred, meta.RootIno, fmt.Sprint("d", i), meta.TypeDirectory, 0o755, 0, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.SetQuota(ctx, dir, 0, 1000); err != nil {
			t.Fatal(err)
		}
		inos = append(inos, dir)
	}
	create := func(name string) {
		t.Helper()
		for _, dir := range inos {
			if _, _, err := c.Mknod(ctx, meta.RootCred, dir, name, meta.TypeFile, 0o644, 0, ""); err != nil {
				t.Fatal(err)
			}
		}
	}
	flushFailing := func(failAt int, lost bool, what string) {
		t.Helper()
		store.arm(failAt, lost)
		if err := c.FlushDirStats(ctx); !errors.Is(err, errInjected) {
			t.Fatalf("a flush failing in its %s: %v, want the injected failure", what, err)
		}
		if err := c.FlushDirStats(ctx); err != nil {
			t.Fatalf("the flush after: %v", err)
		}
	}
	// Statistics of dirs+1 directories take 3 transactions, quota usage
	// of dirs quotas 3 more.
	create("a")
	flushFailing(2, false, "second transaction of statistics")
	create("b")
	flushFailing(5, false, "second transaction of quota usage")
	create("c")
	flushFailing(2, true, "second transaction of statistics, applied")
	create("d")
	flushFailing(6, true, "last transaction of quota usage, applied")

	stats, err := e.AllDirStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	counted, err := meta.CountTree(ctx, e, meta.RootIno)
	if err != nil {
		t.Fatal(err)
	}
	for dir, want := range counted.Stats {
		if stats[dir] != want {
			t.Errorf("directory %d: statistics %+v, a full count %+v", dir, stats[dir], want)
		}
	}
	quotas, err := e.Quotas(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range inos {
		if q := quotas[dir]; q.Inodes != 4 {
			t.Errorf("quota of directory %d counts %d inodes, want 4", dir, q.Inodes)
		}
	}
}
