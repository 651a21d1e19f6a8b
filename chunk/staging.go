package chunk

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"cairn/object"
)

// staging holds blocks written in writeback mode in a local file store
// whose puts are flushed together: every block a slice wrote is durable on
// local disk before its Finish returns (sync), and uploaded by background
// workers, which delete the local copy once the object store has it.
// Blocks left by a crash or an unmount are found again at start and
// uploaded then. Until uploaded, reads are served from here.
type staging struct {
	files *object.File // over the staging directory, with deferred flushes
	s     *Store

	mu      sync.Mutex
	cond    *sync.Cond
	pending map[string]*staged // key -> state, for every block on disk here
	queue   []string
	closing bool
	closed  chan struct{} // closed with closing, to cut retry pauses short
	failed  bool          // an upload failed while closing: leave the rest staged
	wg      sync.WaitGroup
}

type staged struct {
	removed bool  // Remove or Abort came while it was staged
	size    int64 // bytes on disk
}

const (
	stagingRetryFirst = time.Second
	stagingRetryMax   = 30 * time.Second
)

func openStaging(dir string, s *Store) (*staging, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	files, err := object.Open("file", dir, object.Options{DeferSync: true})
	if err != nil {
		return nil, err
	}
	st := &staging{files: files.(*object.File), s: s, pending: make(map[string]*staged), closed: make(chan struct{})}
	st.cond = sync.NewCond(&st.mu)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if strings.HasPrefix(d.Name(), object.TempPrefix) {
			os.Remove(p) // never finished staging: its Finish did not succeed
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		key := filepath.ToSlash(rel)
		var size int64
		if info, err := d.Info(); err == nil {
			size = info.Size()
		}
		st.pending[key] = &staged{size: size}
		st.queue = append(st.queue, key)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(st.queue) > 0 {
		s.log.Info("uploading blocks staged before the last stop", "blocks", len(st.queue))
	}
	for i := 0; i < s.cfg.Uploaders; i++ {
		st.wg.Add(1)
		go st.worker()
	}
	return st, nil
}

// stage writes raw and queues its upload; it is durable once sync returns.
// A crash before then may leave it torn, but then no slice refers to it:
// the slice is committed only after its Finish, which syncs.
func (st *staging) stage(key string, raw []byte) error {
	if err := st.files.Put(context.Background(), key, raw); err != nil {
		return err
	}
	st.mu.Lock()
	st.pending[key] = &staged{size: int64(len(raw))}
	st.queue = append(st.queue, key)
	st.mu.Unlock()
	st.cond.Signal()
	return nil
}

// sync makes every block staged so far durable on local disk, all at once.
func (st *staging) sync(ctx context.Context) error {
	return st.files.Sync(ctx)
}

// get returns a staged block that has not been uploaded yet.
func (st *staging) get(key string) ([]byte, bool) {
	st.mu.Lock()
	p, ok := st.pending[key]
	st.mu.Unlock()
	if !ok || p.removed {
		return nil, false
	}
	raw, err := st.files.Get(context.Background(), key, 0, -1)
	if err != nil {
		return nil, false // uploaded meanwhile: the store has it
	}
	return raw, true
}

// remove drops a staged block; if its upload is under way, the worker
// deletes the object once the upload ends.
func (st *staging) remove(key string) {
	st.mu.Lock()
	if p, ok := st.pending[key]; ok {
		p.removed = true
		st.files.Delete(context.Background(), key)
	}
	st.mu.Unlock()
}

func (st *staging) count() int64 {
	st.mu.Lock()
	defer st.mu.Unlock()
	return int64(len(st.pending))
}

// bytes is the size of the blocks staged and not uploaded yet.
func (st *staging) bytes() int64 {
	st.mu.Lock()
	defer st.mu.Unlock()
	var n int64
	for _, p := range st.pending {
		n += p.size
	}
	return n
}

func (st *staging) worker() {
	defer st.wg.Done()
	for {
		st.mu.Lock()
		for len(st.queue) == 0 && !st.closing {
			st.cond.Wait()
		}
		if len(st.queue) == 0 || st.failed {
			st.mu.Unlock()
			return
		}
		key := st.queue[0]
		st.queue = st.queue[1:]
		st.mu.Unlock()
		st.upload(key)
	}
}

// upload sends one staged block, trying again with growing pauses while
// the store fails; once Close has been called a failure leaves the block
// staged for the next start.
func (st *staging) upload(key string) {
	pause := stagingRetryFirst
	var raw []byte
	for {
		var err error
		raw, err = st.files.Get(context.Background(), key, 0, -1)
		if err != nil {
			st.mu.Lock()
			delete(st.pending, key) // removed while queued
			st.mu.Unlock()
			return
		}
		start := time.Now()
		err = st.s.obj.Put(context.Background(), key, raw)
		if err == nil {
			// The staged copy is deleted below: the object must be
			// durable first.
			err = st.s.syncStore(context.Background())
		}
		st.s.stats.put(len(raw), time.Since(start), err)
		if err == nil {
			break
		}
		st.mu.Lock()
		closing := st.closing
		if closing {
			st.failed = true
		}
		st.mu.Unlock()
		if closing {
			st.s.log.Warn("staged block not uploaded; it will be at the next start", "key", key, "err", err)
			return
		}
		st.s.log.Warn("upload of staged block failed; will retry", "key", key, "pause", pause, "err", err)
		select {
		case <-time.After(pause):
		case <-st.closed:
		}
		pause = min(2*pause, stagingRetryMax)
	}
	st.mu.Lock()
	removed := st.pending[key] != nil && st.pending[key].removed
	delete(st.pending, key)
	st.mu.Unlock()
	if removed {
		if err := st.s.obj.Delete(context.Background(), key); err != nil {
			st.s.log.Warn("delete of a block removed while staged", "key", key, "err", err)
		}
		return
	}
	if st.s.cachesWrite(key) {
		if st.s.disk.adopt(key, st.files.Path(key), int64(len(raw))) {
			return // moved into the disk cache: a rename, not a copy
		}
		st.s.disk.put(key, raw, nil)
	}
	if err := st.files.Delete(context.Background(), key); err != nil {
		st.s.log.Warn("remove uploaded staged block", "key", key, "err", err)
	}
}

// close uploads what is queued, stopping at the first failure, and waits
// for the workers.
func (st *staging) close() {
	st.mu.Lock()
	st.closing = true
	close(st.closed)
	st.mu.Unlock()
	st.cond.Broadcast()
	st.wg.Wait()
}
