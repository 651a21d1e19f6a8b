package meta

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// RemoveTree removes directory dir and everything under it for good,
// through the engine, with up to workers removals in flight, and then the
// entry parent/name that names dir. removed counts every inode removed,
// as it goes (for progress); it may be nil. The caller's permissions
// apply to every removal. It stops at the first failure, leaving the rest
// of the tree in place.
//
// The trash is not consulted: it is how the trash itself is purged, and
// how 'cairn rmr' removes a tree when the trash is off.
func (c *Client) RemoveTree(ctx context.Context, cred Cred, parent Ino, name string, dir Ino, workers int, removed *atomic.Int64) error {
	if removed == nil {
		removed = new(atomic.Int64)
	}
	r := &treeRemoval{c: c, cred: cred, slots: make(chan struct{}, max(workers, 1)), removed: removed, retries: c.eng.Stats().Retries}
	r.batch, _ = clientCapability[BatchRemover](c)
	ctx, r.cancel = context.WithCancel(ctx)
	defer r.cancel()
	r.removeDir(ctx, dir)
	if err := r.failure(); err != nil {
		return err
	}
	if err := c.rmdir(ctx, cred, parent, name); err != nil && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("remove directory %q: %w", name, err)
	}
	removed.Add(1)
	return nil
}

type treeRemoval struct {
	c       *Client
	cred    Cred
	slots   chan struct{} // one per removal in flight
	removed *atomic.Int64
	cancel  context.CancelFunc
	batch   BatchRemover // nil when the engine removes one name at a time

	// Engines with optimistic transactions (etcd, TiKV, Badger) retry
	// removals that race in one directory, since each changes the
	// directory's attributes; past a first sample with many retries, the
	// names of one directory are removed one after another (directories
	// still in parallel).
	retries uint64 // the engine's retry count at the start
	done    atomic.Int64
	serial  atomic.Bool

	mu  sync.Mutex
	err error
}

func (r *treeRemoval) fail(err error) {
	r.mu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.mu.Unlock()
	r.cancel()
}

func (r *treeRemoval) failure() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// removeDir empties dir: its files in parallel, its subdirectories each
// emptied (in parallel too) and then removed.
func (r *treeRemoval) removeDir(ctx context.Context, dir Ino) {
	var wg sync.WaitGroup
	defer wg.Wait()
	after := ""
	for ctx.Err() == nil {
		es, err := r.c.eng.Readdir(ctx, dir, after, 1000, false)
		if errors.Is(err, ErrNotFound) {
			return // removed by someone else meanwhile (another purge)
		}
		if err != nil {
			r.fail(fmt.Errorf("list directory %d: %w", dir, err))
			return
		}
		if len(es) == 0 {
			return
		}
		after = es[len(es)-1].Name
		if r.batch != nil {
			r.removeFiles(ctx, dir, es)
		}
		for _, e := range es {
			if r.batch != nil && e.Type != TypeDirectory {
				continue
			}
			wg.Add(1)
			if e.Type == TypeDirectory {
				go func() {
					defer wg.Done()
					r.removeDir(ctx, e.Ino)
					if r.failure() != nil {
						return
					}
					select {
					case r.slots <- struct{}{}:
						r.remove(ctx, dir, e, true)
						<-r.slots
					case <-ctx.Done():
					}
				}()
				continue
			}
			if r.serial.Load() {
				r.remove(ctx, dir, e, false)
				wg.Done()
				continue
			}
			select {
			case r.slots <- struct{}{}:
			case <-ctx.Done():
				wg.Done()
				return
			}
			go func() {
				defer wg.Done()
				defer func() { <-r.slots }()
				r.remove(ctx, dir, e, false)
			}()
		}
	}
}

func (r *treeRemoval) remove(ctx context.Context, dir Ino, e Entry, isDir bool) {
	var err error
	if isDir {
		err = r.c.rmdir(ctx, r.cred, dir, e.Name)
	} else {
		_, _, err = r.c.unlink(ctx, r.cred, dir, e.Name)
	}
	if errors.Is(err, ErrNotFound) {
		return // removed by someone else meanwhile, as rm -rf allows
	}
	if err != nil {
		r.fail(fmt.Errorf("remove %q in directory %d: %w", e.Name, dir, err))
		return
	}
	r.removed.Add(1)
	if r.done.Add(1) == retrySample && r.c.eng.Stats().Retries-r.retries > retrySample/2 {
		r.serial.Store(true)
	}
}

// retrySample is how many removals pass before the retry count is read.
const retrySample = 64

// removeFiles removes the non-directories among es, all of directory dir,
// in batches (BatchRemover), one removal slot at a time.
func (r *treeRemoval) removeFiles(ctx context.Context, dir Ino, es []Entry) {
	files := make([]Entry, 0, len(es))
	for _, e := range es {
		if e.Type != TypeDirectory {
			files = append(files, e)
		}
	}
	if len(files) == 0 {
		return
	}
	select {
	case r.slots <- struct{}{}:
	case <-ctx.Done():
		return
	}
	defer func() { <-r.slots }()
	n, err := r.c.removeEntries(ctx, r.batch, r.cred, dir, files)
	r.removed.Add(int64(n))
	if errors.Is(err, ErrNotFound) {
		return // dir removed by someone else meanwhile (another purge)
	}
	if err != nil {
		r.fail(fmt.Errorf("remove the files of directory %d: %w", dir, err))
	}
}
