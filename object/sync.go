package object

import (
	"cairn/internal/atomicfile"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// Syncer is implemented by stores whose Put may return before the object
// is durable. Sync returns once every object whose Put returned before
// Sync was called is durable. Callers that need durability (a slice about
// to be committed, a staged block about to be deleted) call it when the
// store implements it.
type Syncer interface {
	Sync(ctx context.Context) error
}

// unsynced are the objects a File with DeferSync has put and not flushed.
type unsynced struct {
	mu    sync.Mutex
	files map[string]bool // paths of objects put since the last Sync took them
	dirs  map[string]bool // their directories (a rename is flushed by its directory)

	syncMu sync.Mutex // one Sync at a time: a Sync that finds nothing waits for the one under way
}

func (u *unsynced) add(path string) {
	u.mu.Lock()
	if u.files == nil {
		u.files, u.dirs = make(map[string]bool), make(map[string]bool)
	}
	u.files[path] = true
	u.dirs[filepath.Dir(path)] = true
	u.mu.Unlock()
}

// syncParallel is how many flushes one Sync runs at once; concurrent
// fsyncs on one file system share journal commits.
const syncParallel = 16

// Sync flushes the objects put so far: their files and their directories,
// all at once (concurrent flushes share the file system's journal
// commits). A crash in between may leave an object whose name is durable
// and whose bytes are not; no caller relies on an object before Sync
// returns, and blocks carry checksums. Without DeferSync, Put has already
// flushed each object.
func (f *File) Sync(ctx context.Context) error {
	if !f.deferSync {
		return nil
	}
	u := &f.unsynced
	u.syncMu.Lock()
	defer u.syncMu.Unlock()
	u.mu.Lock()
	files, dirs := u.files, u.dirs
	u.files, u.dirs = nil, nil
	u.mu.Unlock()
	if len(files) == 0 {
		return nil
	}
	var (
		wg     sync.WaitGroup
		sem    = make(chan struct{}, syncParallel)
		errMu  sync.Mutex
		first  error
		failed []string
	)
	flush := func(paths map[string]bool, do func(string) error) {
		for p := range paths {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				if err := do(p); err != nil && !os.IsNotExist(err) { // a deleted object needs no flush
					errMu.Lock()
					first = cmpErr(first, fmt.Errorf("flush %s: %w", p, err))
					failed = append(failed, p)
					errMu.Unlock()
				}
			}()
		}
	}
	flush(files, syncFile)
	flush(dirs, atomicfile.SyncDir)
	wg.Wait()
	if first != nil {
		// Keep them for the next Sync: the caller will try again.
		for _, p := range failed {
			u.add(p)
		}
		return first
	}
	return nil
}

func syncFile(path string) error {
	fd, err := os.Open(path)
	if err != nil {
		return err
	}
	err = fd.Sync()
	if cerr := fd.Close(); err == nil {
		err = cerr
	}
	return err
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// Sync passes on to the wrapped store; it is not retried (a failed flush
// may have lost data, trying again cannot tell).
func (r *retrying) Sync(ctx context.Context) error {
	if s, ok := r.Store.(Syncer); ok {
		return s.Sync(ctx)
	}
	return nil
}
