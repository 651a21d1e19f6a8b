package kv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// walSyncer makes Badger's commits durable by syncing its memtables'
// write-ahead logs, the directory's *.mem files, and nothing else. With
// SyncWrites Badger syncs two files on every commit: that log and the
// value log, whose sync costs a flush of the disk's cache even when the
// commit put nothing in it, as cairn's commits do (every value is smaller
// than ValueThreshold and lives in the LSM tree): 120-175 µs of each
// commit here. So the store opens Badger without SyncWrites, writes only
// values below the threshold while it syncs this way (see
// BadgerStore.Txn), and calls sync after each commit.
//
// Every *.mem file is synced, not only the current memtable's: a commit
// may land in a memtable that becomes immutable before the sync. A log
// Badger deleted needs nothing: it deletes one only once the memtable's
// table is written and synced. Concurrent commits share a sync: each
// waits for one that started after its commit returned (group commit).
type walSyncer struct {
	dir string
	// fallback syncs the whole database, for a directory in which no
	// *.mem file is found (a Badger that names its logs otherwise).
	fallback func() error

	mu                sync.Mutex
	cond              sync.Cond
	started, finished uint64
	running           bool
	waiting           int   // callers waiting for a sync to end
	err               error // the first failed sync's: every later one fails too

	files map[string]*os.File // the open logs, by name; used by the running sync only
}

func newWALSyncer(dir string, fallback func() error) *walSyncer {
	w := &walSyncer{dir: dir, fallback: fallback, files: map[string]*os.File{}}
	w.cond.L = &w.mu
	return w
}

// sync returns once every commit that returned before it was called is on
// disk, or the sync failed. After a failure nothing is known to be on disk
// any more (the kernel may have dropped the pages it could not write), so
// every later call fails too.
func (w *walSyncer) sync() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	// A sync already running may have started before the caller's commit.
	want := w.started + 1
	for w.finished < want && w.err == nil {
		if w.running {
			w.waiting++
			w.cond.Wait()
			w.waiting--
			continue
		}
		w.running = true
		w.started++
		n := w.started
		w.mu.Unlock()
		err := w.syncLogs()
		w.mu.Lock()
		w.running, w.finished = false, n
		if err != nil {
			w.err = fmt.Errorf("badger: make the commit durable: %w", err)
		}
		w.cond.Broadcast()
	}
	return w.err
}

// syncLogs lists the directory's logs, opening new ones and closing those
// gone, and syncs each.
func (w *walSyncer) syncLogs() error {
	es, err := os.ReadDir(w.dir)
	if err != nil {
		return err
	}
	seen := make(map[string]bool, len(w.files))
	for _, e := range es {
		name := e.Name()
		if !strings.HasSuffix(name, ".mem") {
			continue
		}
		seen[name] = true
		if w.files[name] != nil {
			continue
		}
		f, err := os.Open(filepath.Join(w.dir, name))
		if os.IsNotExist(err) {
			continue // written to a table and deleted since the listing
		}
		if err != nil {
			return err
		}
		w.files[name] = f
	}
	for name, f := range w.files {
		if !seen[name] {
			f.Close()
			delete(w.files, name)
		}
	}
	if len(w.files) == 0 {
		return w.fallback()
	}
	for name, f := range w.files {
		if err := unix.Fdatasync(int(f.Fd())); err != nil {
			return fmt.Errorf("sync %s: %w", name, err)
		}
	}
	return nil
}

// close closes the logs it holds open.
func (w *walSyncer) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for name, f := range w.files {
		f.Close()
		delete(w.files, name)
	}
}
