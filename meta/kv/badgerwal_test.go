package kv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cairn/internal/testenv"
)

// TestWALSyncerGroupCommit: callers that arrive while a sync runs share
// the next one, and none returns before a sync that started after it
// was called has ended.
func TestWALSyncerGroupCommit(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	syncs := 0
	w := newWALSyncer(t.TempDir(), func() error { // no *.mem file: the fallback is the sync
		mu.Lock()
		syncs++
		n := syncs
		mu.Unlock()
		if n == 1 {
			<-release
		}
		return nil
	})
	first := make(chan error, 1)
	go func() { first <- w.sync() }()
	testenv.Eventually(t, "the first sync started", func() bool { w.mu.Lock(); defer w.mu.Unlock(); return w.running })
	later := make(chan error, 3)
	for range 3 {
		go func() { later <- w.sync() }()
	}
	testenv.Eventually(t, "three callers waiting", func() bool { w.mu.Lock(); defer w.mu.Unlock(); return w.waiting == 3 })
	select {
	case err := <-later:
		t.Fatalf("a caller returned (%v) while the sync that started before it still ran", err)
	default:
	}
	close(release)
	for _, c := range []chan error{first, later, later, later} {
		if err := <-c; err != nil {
			t.Fatal(err)
		}
	}
	if syncs != 2 {
		t.Fatalf("%d syncs for a caller and three that came during its sync, want 2", syncs)
	}
}

// TestWALSyncerLogs: the directory's NNNNN.mem files are synced oldest
// first, a new one is found, one deleted is dropped, one whose name came
// back (Badger opened anew) is the new file; a failed listing is returned
// and the next sync tries again; a failed write sticks.
func TestWALSyncerLogs(t *testing.T) {
	dir := t.TempDir()
	write := func(names ...string) {
		for _, name := range names {
			if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	write("00002.mem", "00001.mem", "00001.vlog", "MANIFEST", "x.mem")
	fallbacks := 0
	w := newWALSyncer(dir, func() error { fallbacks++; return nil })
	defer w.close()
	var synced []string
	var failWrite error
	w.datasync = func(f *os.File) error {
		want, err := os.Stat(f.Name())
		got, ferr := f.Stat()
		if err != nil || ferr != nil || !os.SameFile(want, got) {
			t.Errorf("synced %s, which is not the file of that name (%v, %v)", f.Name(), err, ferr)
		}
		synced = append(synced, filepath.Base(f.Name()))
		return failWrite
	}
	syncs := func(want ...string) {
		t.Helper()
		synced = nil
		if err := w.sync(); err != nil {
			t.Fatal(err)
		}
		if strings.Join(synced, " ") != strings.Join(want, " ") {
			t.Fatalf("synced %v, want %v", synced, want)
		}
	}
	syncs("00001.mem", "00002.mem")
	write("00003.mem")
	syncs("00001.mem", "00002.mem", "00003.mem")
	if err := os.Remove(filepath.Join(dir, "00001.mem")); err != nil {
		t.Fatal(err)
	}
	syncs("00002.mem", "00003.mem")
	for _, name := range []string{"00002.mem", "00003.mem"} { // Badger opened anew
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	write("00002.mem")
	syncs("00002.mem")
	if fallbacks != 0 {
		t.Fatalf("the whole database was synced %d times with logs to sync", fallbacks)
	}

	w2 := newWALSyncer(filepath.Join(dir, "missing"), func() error { return nil })
	if err := w2.sync(); err == nil {
		t.Fatal("a sync of a missing directory succeeded")
	}
	if err := os.Mkdir(w2.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := w2.sync(); err != nil {
		t.Fatalf("the sync after a failed listing: %v", err)
	}

	failWrite = errors.New("disk gone")
	if err := w.sync(); err == nil {
		t.Fatal("a failed write was not reported")
	}
	failWrite = nil
	if err := w.sync(); err == nil || !strings.Contains(err.Error(), "disk gone") {
		t.Fatalf("a sync after a failed write: %v, want the failure again", err)
	}
}

// TestBadgerWALAfterLoad: the logs a load's reopening leaves are the ones
// synced after it, not the deleted ones whose names they took.
func TestBadgerWALAfterLoad(t *testing.T) {
	dir := t.TempDir()
	s, _ := openBadgerPut(t, dir)
	defer s.Close()
	ctx := context.Background()
	// A commit that leaves the store empty, so that a load may start.
	if err := s.Txn(ctx, func(tx Tx) error { tx.Delete([]byte("none")); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := s.startLoad(); err != nil {
		t.Fatal(err)
	}
	if err := s.endLoad(); err != nil {
		t.Fatal(err)
	}
	if err := s.Txn(ctx, func(tx Tx) error { tx.Put([]byte("k"), []byte("v")); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(s.wal.logs) == 0 {
		t.Fatal("no log synced after the load")
	}
	for _, l := range s.wal.logs {
		want, err := os.Stat(l.file.Name())
		got, ferr := l.file.Stat()
		if err != nil || ferr != nil || !os.SameFile(want, got) {
			t.Fatalf("after a load the store syncs %s, not the file of that name (%v, %v)", l.file.Name(), err, ferr)
		}
	}
}

// TestBadgerBigValueSyncsEveryCommit: the first value Badger would put
// in its value log makes the store sync as Badger does (SyncWrites) for
// the rest of its life; the transaction that wrote it runs again and
// commits, and what it wrote is there after the store is opened again.
func TestBadgerBigValueSyncsEveryCommit(t *testing.T) {
	dir := t.TempDir()
	s, put := openBadgerPut(t, dir)
	ctx := context.Background()
	if err := put("small", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if s.wal == nil || s.opts.SyncWrites {
		t.Fatal("a store of small values does not sync its logs itself")
	}
	big := make([]byte, s.opts.ValueThreshold)
	big[0] = 'b'
	if err := put("big", big); !errors.Is(err, ErrTxnConflict) {
		t.Fatalf("the first big value: %v, want a conflict (run again)", err)
	}
	if s.wal != nil || !s.opts.SyncWrites || !s.db.Opts().SyncWrites {
		t.Fatal("after a big value the store still syncs its logs itself")
	}
	if err := put("big", big); err != nil {
		t.Fatal(err)
	}
	if err := put("small2", []byte("w")); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, _ = openBadgerPut(t, dir)
	defer s.Close()
	for key, want := range map[string]int{"small": 1, "big": len(big), "small2": 1} {
		var got []byte
		if err := s.Txn(ctx, func(tx Tx) (err error) { got, err = tx.Get([]byte(key)); return err }); err != nil {
			t.Fatal(err)
		}
		if len(got) != want {
			t.Fatalf("%s holds %d bytes, want %d", key, len(got), want)
		}
	}
}

// openBadgerPut opens a store in dir and returns it with a function that
// puts one key in one transaction.
func openBadgerPut(t *testing.T, dir string) (*BadgerStore, func(key string, value []byte) error) {
	t.Helper()
	s, err := OpenBadger(dir, BadgerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s, func(key string, value []byte) error {
		return s.Txn(context.Background(), func(tx Tx) error { tx.Put([]byte(key), value); return nil })
	}
}

// TestBadgerSwitchUnderWriters: the switch to SyncWrites while other
// goroutines commit loses none of their commits and blocks none of them
// for good.
func TestBadgerSwitchUnderWriters(t *testing.T) {
	dir := t.TempDir()
	s, once := openBadgerPut(t, dir)
	ctx := context.Background()
	put := func(key string, value []byte) error {
		for {
			if err := once(key, value); !errors.Is(err, ErrTxnConflict) {
				return err
			}
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 5)
	var commits, atSwitch, afterSwitch atomic.Int64
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				if err := put(fmt.Sprintf("w%d-%d", w, i), []byte("v")); err != nil {
					errs <- err
					return
				}
				commits.Add(1)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for commits.Load() < 100 {
			time.Sleep(100 * time.Microsecond)
		}
		atSwitch.Store(commits.Load())
		if err := put("big", make([]byte, s.opts.ValueThreshold)); err != nil {
			errs <- err
		}
		afterSwitch.Store(commits.Load())
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, _ = openBadgerPut(t, dir)
	defer s.Close()
	n := 0
	if err := s.Txn(ctx, func(tx Tx) error {
		kvs, err := tx.Scan([]byte("w"), []byte("x"), 0)
		n = len(kvs)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if n != 800 {
		t.Fatalf("%d of 800 commits made around the switch are there", n)
	}
	if afterSwitch.Load() == 800 && atSwitch.Load() == 800 {
		t.Fatal("the writers ended before the switch")
	}
	t.Logf("the switch began after %d commits and ended after %d", atSwitch.Load(), afterSwitch.Load())
}
