package kv

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// walSyncer makes Badger's commits durable by syncing its memtables'
// write-ahead logs, the directory's NNNNN.mem files, and nothing else.
// With SyncWrites Badger syncs two files on every commit: that log and the
// value log, whose sync costs a flush of the disk's cache even when the
// commit put nothing in it, as cairn's commits do (values below
// ValueThreshold live in the LSM tree): 120-175 µs of each commit here. So
// the store opens Badger without SyncWrites, writes only values below the
// threshold while it syncs this way (see BadgerStore.Txn), and calls sync
// after each commit.
//
// Every log is synced, not only the current memtable's: a commit may land
// in a memtable that becomes immutable before the sync. They are synced
// oldest first, so that a crash during a sync cannot keep a later commit
// without an earlier one. A log Badger deleted needs nothing: it deletes
// one only once the memtable's table is written and synced. Concurrent
// commits share a sync: each waits for one that started after its commit
// returned (group commit).
//
// The directory is listed only when the logs it knows change (one of
// them deleted, or none known): a volume's directory holds hundreds of
// tables per GiB. Badger numbers a new memtable's log one past the
// newest, so each sync looks for that one by name.
type walSyncer struct {
	dir string
	// fallback syncs the whole database, for a directory in which no log
	// is found (a Badger that names its logs otherwise).
	fallback func() error
	// datasync makes one open log durable (unix.Fdatasync; tests count).
	datasync func(f *os.File) error

	mu                sync.Mutex
	cond              sync.Cond
	started, finished uint64
	running           bool
	waiting           int   // callers waiting for a sync to end
	err               error // the first failed sync's: every later one fails too

	// logs are the open logs, oldest first; used by the running sync
	// only, and by close when none runs.
	logs []walLog
}

type walLog struct {
	fid  int
	file *os.File
}

const walSuffix = ".mem"

func newWALSyncer(dir string, fallback func() error) *walSyncer {
	w := &walSyncer{dir: dir, fallback: fallback, datasync: func(f *os.File) error { return unix.Fdatasync(int(f.Fd())) }}
	w.cond.L = &w.mu
	return w
}

// sync returns once every commit that returned before it was called is on
// disk, or the sync failed. After a failed write to disk nothing is known
// to be there any more (the kernel may have dropped the pages it could not
// write), so every later call fails too.
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
		sticky, err := w.syncLogs()
		w.mu.Lock()
		w.running = false
		w.cond.Broadcast()
		switch {
		case sticky:
			w.err = fmt.Errorf("badger: make the commit durable: %w", err)
		case err != nil:
			// Nothing was written (a listing or an open failed): the
			// callers waiting for this sync start another.
			return fmt.Errorf("badger: make the commit durable: %w", err)
		default:
			w.finished = n
		}
	}
	return w.err
}

// syncLogs brings the list of logs up to date and syncs each, oldest
// first. sticky says a write to disk failed (not a listing or an open).
func (w *walSyncer) syncLogs() (sticky bool, err error) {
	if err := w.refresh(); err != nil {
		return false, err
	}
	if len(w.logs) == 0 {
		err := w.fallback()
		return err != nil, err
	}
	for _, l := range w.logs {
		if err := w.datasync(l.file); err != nil {
			return true, fmt.Errorf("sync %s: %w", l.file.Name(), err)
		}
	}
	return false, nil
}

// refresh drops the logs Badger deleted (a name Badger may give a new log
// again after it opened the database anew) and adds the new ones.
func (w *walSyncer) refresh() error {
	gone := len(w.logs) == 0
	for _, l := range w.logs {
		var st unix.Stat_t
		if err := unix.Fstat(int(l.file.Fd()), &st); err != nil {
			return err
		}
		if st.Nlink == 0 {
			gone = true
		}
	}
	if gone {
		return w.list()
	}
	for next := w.logs[len(w.logs)-1].fid + 1; ; next++ {
		f, err := os.Open(filepath.Join(w.dir, walName(next)))
		if os.IsNotExist(err) {
			return nil
		}
		if err != nil {
			return err
		}
		w.logs = append(w.logs, walLog{next, f})
	}
}

// list opens the directory's logs anew.
func (w *walSyncer) list() error {
	w.closeLogs()
	d, err := os.Open(w.dir)
	if err != nil {
		return err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return err
	}
	for _, name := range names {
		fid, err := strconv.Atoi(strings.TrimSuffix(name, walSuffix))
		if !strings.HasSuffix(name, walSuffix) || err != nil {
			continue
		}
		f, err := os.Open(filepath.Join(w.dir, name))
		if os.IsNotExist(err) {
			continue // written to a table and deleted since the listing
		}
		if err != nil {
			return err
		}
		w.logs = append(w.logs, walLog{fid, f})
	}
	sort.Slice(w.logs, func(i, j int) bool { return w.logs[i].fid < w.logs[j].fid })
	return nil
}

func walName(fid int) string { return fmt.Sprintf("%05d%s", fid, walSuffix) }

func (w *walSyncer) closeLogs() {
	for _, l := range w.logs {
		l.file.Close()
	}
	w.logs = nil
}

// close closes the logs it holds open; call it when no sync runs (the
// store's write lock held), as when Badger is opened anew.
func (w *walSyncer) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closeLogs()
}
