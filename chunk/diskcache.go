package chunk

import (
	"cairn/internal/atomicfile"
	"container/list"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// diskCache keeps stored blocks (header, checksum and all) as files under a
// directory, within a byte limit, evicting the least recently used. It is
// only a cache: every failure of its disk — full, read-only, broken — makes
// it step aside for a while and the caller go to the object store. Its
// index is rebuilt from the directory at start, oldest file first, so it
// survives restarts.
type diskCache struct {
	dir   string
	limit int64
	log   *slog.Logger
	errs  func()

	mu          sync.Mutex
	used        int64
	lru         *list.List // front: most recent; values *diskEntry
	items       map[string]*list.Element
	pausedUntil time.Time
	closed      bool

	queue    chan diskWrite
	wg       sync.WaitGroup
	noDirect atomic.Bool // O_DIRECT was refused; write through the page cache
	full     atomic.Bool // the file system was nearly full when last looked at
	minFree  float64     // minFreeRatio; a test's own
}

type diskEntry struct {
	key  string
	size int64
}

type diskWrite struct {
	key  string
	raw  []byte
	done func() // called once raw is no longer needed; may be nil
}

const (
	diskTempPrefix = ".cairn-cache-tmp-"
	diskPause      = 30 * time.Second
	diskQueue      = 32
)

// openDiskCache indexes dir (made if missing) and starts its writer. onErr
// counts failed writes.
func openDiskCache(dir string, limit int64, log *slog.Logger, onErr func()) (*diskCache, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	c := &diskCache{dir: dir, limit: limit, log: log, errs: onErr, lru: list.New(), minFree: minFreeRatio,
		items: make(map[string]*list.Element), queue: make(chan diskWrite, diskQueue)}
	if err := c.scan(); err != nil {
		return nil, err
	}
	c.wg.Add(1)
	go c.writer()
	return c, nil
}

func (c *diskCache) scan() error {
	type found struct {
		key  string
		size int64
		mod  time.Time
	}
	var all []found
	err := filepath.WalkDir(c.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		if strings.HasPrefix(d.Name(), diskTempPrefix) {
			os.Remove(p) // left by a crash
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(c.dir, p)
		all = append(all, found{filepath.ToSlash(rel), info.Size(), info.ModTime()})
		return nil
	})
	if err != nil {
		return err
	}
	sort.Slice(all, func(i, j int) bool { return all[i].mod.Before(all[j].mod) })
	for _, f := range all {
		c.items[f.key] = c.lru.PushFront(&diskEntry{f.key, f.size})
		c.used += f.size
	}
	c.evictLocked()
	return nil
}

func (c *diskCache) path(key string) string {
	return filepath.Join(c.dir, filepath.FromSlash(key))
}

// get returns the stored block, or false if it is not cached or cannot be
// read.
func (c *diskCache) get(key string) ([]byte, bool) {
	c.mu.Lock()
	el, ok := c.items[key]
	if ok {
		c.lru.MoveToFront(el)
	}
	c.mu.Unlock()
	if !ok {
		return nil, false
	}
	raw, err := os.ReadFile(c.path(key))
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.log.Warn("disk cache read failed; reading from the object store", "key", key, "err", err)
		}
		c.remove(key)
		return nil, false
	}
	// The modification time orders the index rebuilt at the next start.
	now := time.Now()
	os.Chtimes(c.path(key), now, now)
	return raw, true
}

// put queues raw to be written; when the queue is full or the disk is
// paused after an error, the block is simply not cached. done, if not nil,
// is called once raw is no longer needed: written, or not queued.
func (c *diskCache) put(key string, raw []byte, done func()) {
	if !c.queuePut(diskWrite{key, raw, done}) && done != nil {
		done()
	}
}

func (c *diskCache) queuePut(w diskWrite) bool {
	if int64(len(w.raw)) > c.limit {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, have := c.items[w.key]; have || c.closed || time.Now().Before(c.pausedUntil) {
		return false
	}
	select {
	case c.queue <- w:
		return true
	default:
		return false
	}
}

// adopt moves the file at path, which holds block key as stored, into the
// cache: a rename instead of a copy (a staged block once uploaded). It
// reports whether it did; if not, the file is still at path.
func (c *diskCache) adopt(key, path string, size int64) bool {
	if size > c.limit || c.diskNearlyFull() {
		return false
	}
	c.mu.Lock()
	_, have := c.items[key]
	refuse := have || c.closed || time.Now().Before(c.pausedUntil)
	c.mu.Unlock()
	if refuse {
		return false
	}
	dst := c.path(key)
	if os.MkdirAll(filepath.Dir(dst), 0o755) != nil || os.Rename(path, dst) != nil {
		return false // another file system, or a failing disk: not cached
	}
	c.added(key, size)
	return true
}

func (c *diskCache) writer() {
	defer c.wg.Done()
	for w := range c.queue {
		err := c.write(w.key, w.raw)
		if w.done != nil {
			w.done()
		}
		if err != nil {
			c.errs()
			c.mu.Lock()
			c.pausedUntil = time.Now().Add(diskPause)
			c.mu.Unlock()
			c.log.Warn("disk cache write failed; caching paused", "dir", c.dir, "pause", diskPause, "err", err)
		}
	}
}

// minFreeRatio is the share of the cache's file system that is left free:
// the cache stops growing before the disk fills up for everyone else.
const minFreeRatio = 0.1

// diskNearlyFull reports whether the cache's file system has less than
// minFree of its room left, and says so in the log when that changes: a
// cache that silently stops growing looks like a cache that does not work.
func (c *diskCache) diskNearlyFull() bool {
	var st syscall.Statfs_t
	if syscall.Statfs(c.dir, &st) != nil || st.Blocks == 0 {
		return false
	}
	full := float64(st.Bavail) < c.minFree*float64(st.Blocks)
	if c.full.Swap(full) != full {
		free := fmt.Sprintf("%.1f%%", 100*float64(st.Bavail)/float64(st.Blocks))
		if full {
			c.log.Warn("disk cache: its file system is nearly full; blocks are not cached until there is room", "dir", c.dir, "free", free, "reserve", fmt.Sprintf("%g%%", 100*c.minFree))
		} else {
			c.log.Info("disk cache: room again; blocks are cached", "dir", c.dir, "free", free)
		}
	}
	return full
}

func (c *diskCache) write(key string, raw []byte) error {
	if c.diskNearlyFull() {
		return nil // not cached; not an error of the disk
	}
	p := c.path(key)
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := atomicfile.WritePreferDirect(p, raw, diskTempPrefix, false, &c.noDirect); err != nil {
		return err
	}
	c.added(key, int64(len(raw)))
	return nil
}

// added indexes a block just put in the cache's directory and evicts what
// no longer fits.
func (c *diskCache) added(key string, size int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[key]; !ok {
		c.items[key] = c.lru.PushFront(&diskEntry{key, size})
		c.used += size
	}
	c.evictLocked()
}

func (c *diskCache) evictLocked() {
	for c.used > c.limit {
		el := c.lru.Back()
		e := el.Value.(*diskEntry)
		c.lru.Remove(el)
		delete(c.items, e.key)
		c.used -= e.size
		os.Remove(c.path(e.key))
	}
}

func (c *diskCache) remove(key string) {
	c.mu.Lock()
	if el, ok := c.items[key]; ok {
		c.lru.Remove(el)
		delete(c.items, key)
		c.used -= el.Value.(*diskEntry).size
	}
	c.mu.Unlock()
	os.Remove(c.path(key))
}

func (c *diskCache) size() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}

// close writes out the queue and stops the writer.
func (c *diskCache) close() {
	c.mu.Lock()
	c.closed = true
	close(c.queue)
	c.mu.Unlock()
	c.wg.Wait()
}
