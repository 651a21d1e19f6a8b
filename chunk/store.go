package chunk

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"cairn/object"
)

// Store reads and writes the blocks of slices in an object store. All its
// methods are safe for concurrent use. Close it after the last Writer has
// finished; it waits for background uploads, deletions and prefetches.
type Store struct {
	obj   object.Store
	cfg   Config
	codec *codec
	log   *slog.Logger

	budget    *budget
	uploadSem chan struct{}
	getSem    chan struct{}
	mem       *memCache
	bufs      *blockPool // download buffers of full-size blocks
	disk      *diskCache // nil without a cache directory
	staging   *staging   // nil unless writeback
	stats     counters
	ra        *readahead

	flightMu sync.Mutex
	flight   map[string]*fetch

	ctx       context.Context // cancelled by Close: stops prefetches
	cancel    context.CancelFunc
	bg        sync.WaitGroup
	closeOnce sync.Once
}

// fetch is one download of a block that concurrent readers share. Each
// reader that joined it gets a reference on data.
type fetch struct {
	done    chan struct{}
	readers int32 // guarded by Store.flightMu until the fetch leaves flight
	data    *blockData
	err     error
}

// New opens a block store over obj.
func New(obj object.Store, cfg Config) (*Store, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	c, err := newCodec(cfg.Compression)
	if err != nil {
		return nil, err
	}
	s := &Store{
		obj: obj, cfg: cfg, codec: c, log: slog.Default().With("store", obj.String()),
		budget:    newBudget(cfg.BufferSize),
		uploadSem: make(chan struct{}, cfg.Uploaders),
		getSem:    make(chan struct{}, cfg.Downloaders),
		mem:       newMemCache(cfg.MemCacheSize),
		bufs:      newBlockPool(cfg.BlockSize),
		ra:        newReadahead(),
		flight:    make(map[string]*fetch),
	}
	if cfg.CacheDir != "" {
		dir := filepath.Join(cfg.CacheDir, "cache")
		s.disk, err = openDiskCache(dir, cfg.CacheSize, s.log, func() { s.stats.cacheWriteErrors.Add(1) })
		if err != nil {
			s.log.Warn("disk cache unusable; reading from the object store only", "dir", dir, "err", err)
			s.disk = nil
		}
	}
	if cfg.Writeback {
		dir := StagingDir(cfg.CacheDir)
		if s.staging, err = openStaging(dir, s); err != nil {
			// Staged blocks of an earlier run may be in there: refusing
			// to start is safer than forgetting them.
			return nil, fmt.Errorf("writeback staging directory %s: %w", dir, err)
		}
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	return s, nil
}

// Close waits for uploads and deletions under way, stops prefetches, and
// releases the Store's resources. Calling it again does nothing.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.cancel()
		s.bg.Wait()
		if s.staging != nil {
			s.staging.close()
		}
		if s.disk != nil {
			s.disk.close()
		}
		s.codec.close()
	})
	return nil
}

// BlockSize is the configured block size.
func (s *Store) BlockSize() int { return s.cfg.BlockSize }

// ReadAt reads len(p) bytes at off of slice id, whose data is size bytes.
// Errors from a missing or corrupt block match syscall.EIO (errors.Is);
// a corrupt block also matches ErrCorrupt.
func (s *Store) ReadAt(ctx context.Context, id uint64, size uint32, p []byte, off uint32) (int, error) {
	end := int64(off) + int64(len(p))
	if end > int64(size) {
		return 0, fmt.Errorf("read [%d,%d) of slice %d: beyond its %d bytes", off, end, id, size)
	}
	if len(p) == 0 {
		return 0, nil
	}
	bs := int64(s.cfg.BlockSize)
	if seq, run := s.ra.sequential(id, off, uint32(end)); seq && s.cfg.Readahead > 0 {
		if first := int64(off) / bs; first > 0 {
			s.mem.demote(blockKey(id, int(first-1), int(bs)))
		}
		window := min(int64(s.cfg.Readahead), max(minReadaheadBlocks*bs, 2*int64(run)))
		s.prefetch(id, size, int(end/bs), int((min(end+window, int64(size))-1)/bs))
	}
	n := 0
	for pos := int64(off); pos < end; {
		idx := int(pos / bs)
		data, err := s.block(ctx, id, idx, blockLen(size, int(bs), idx))
		if err != nil {
			return n, asIOError(fmt.Errorf("read slice %d at %d: %w", id, pos, err))
		}
		c := copy(p[n:], data.bytes[pos-int64(idx)*bs:])
		data.release()
		n += c
		pos += int64(c)
	}
	return n, nil
}

// block returns the plain data of one block, with a reference the caller
// releases once it has copied what it needs: from memory, from the disk
// cache, or downloaded once however many readers want it at the same time.
func (s *Store) block(ctx context.Context, id uint64, idx, n int) (*blockData, error) {
	key := blockKey(id, idx, n)
	if data, ok := s.mem.get(key); ok {
		s.stats.memHits.Add(1)
		return data, nil
	}
	f, leader := s.join(key, true)
	if f == nil {
		return s.block(ctx, id, idx, n) // finished between the two looks
	}
	if leader {
		s.runFetch(key, n, f)
	}
	select {
	case <-f.done:
		return f.data, f.err
	case <-ctx.Done():
		go func() { // the reference this reader was given
			<-f.done
			if f.data != nil {
				f.data.release()
			}
		}()
		return nil, ctx.Err()
	}
}

// join returns the download of key under way, or starts one that the
// caller leads; a reader is counted for a reference on the data. It
// returns nil if the block has meanwhile reached memory.
func (s *Store) join(key string, reader bool) (f *fetch, leader bool) {
	s.flightMu.Lock()
	defer s.flightMu.Unlock()
	f, ok := s.flight[key]
	if !ok {
		if s.mem.contains(key) {
			return nil, false
		}
		f = &fetch{done: make(chan struct{})}
		s.flight[key] = f
	}
	if reader {
		f.readers++
	}
	return f, !ok
}

// runFetch downloads for every waiter, so one reader giving up must not
// fail it for the others: only Close cancels it.
func (s *Store) runFetch(key string, n int, f *fetch) {
	data, err := s.load(s.ctx, key, n)
	if err == nil {
		s.mem.put(key, data)
	}
	s.flightMu.Lock()
	delete(s.flight, key)
	readers := f.readers
	s.flightMu.Unlock()
	if data != nil {
		data.refs.Add(readers)
		data.release() // load's
	}
	f.data, f.err = data, err
	close(f.done)
}

// ErrBlockMissing is matched by read errors for a block the object store
// does not have; like ErrCorrupt it also matches syscall.EIO.
var ErrBlockMissing = errors.New("block is missing from the object store")

type missingError struct{ err error }

func (e *missingError) Error() string { return e.err.Error() }
func (e *missingError) Unwrap() error { return e.err }
func (e *missingError) Is(target error) bool {
	return target == ErrBlockMissing || target == errEIO
}

// load returns a block's plain data with one reference, the caller's.
func (s *Store) load(ctx context.Context, key string, n int) (*blockData, error) {
	if s.staging != nil {
		if raw, ok := s.staging.get(key); ok {
			data, err := s.codec.decode(key, raw, n)
			if err != nil {
				return nil, err
			}
			return newBlockData(data, nil, nil), nil
		}
	}
	if s.disk != nil {
		if raw, ok := s.disk.get(key); ok {
			data, err := s.codec.decode(key, raw, n)
			if err == nil {
				s.stats.cacheHits.Add(1)
				return newBlockData(data, nil, nil), nil
			}
			s.log.Warn("cached block is corrupt; dropped, reading from the object store", "err", err)
			s.disk.remove(key)
		}
	}
	s.stats.cacheMisses.Add(1)
	raw, err := s.download(ctx, key, n)
	if err != nil {
		return nil, err
	}
	data, err := s.codec.decode(key, raw.bytes, n)
	if err != nil {
		raw.release()
		s.stats.corrupt.Add(1)
		s.log.Error("corrupt block in the object store", "err", err)
		return nil, err
	}
	if s.disk != nil {
		raw.hold()
		s.disk.put(key, raw.bytes, raw.release)
	}
	if len(data) > 0 && len(raw.bytes) > headerSize && &data[0] == &raw.bytes[headerSize] {
		raw.bytes = data // stored uncompressed: the block is its stored form's tail
		return raw, nil
	}
	raw.release()
	return newBlockData(data, nil, nil), nil
}

// download gets a block's stored form from the object store, with one
// reference; a full-size block goes into a recycled buffer.
func (s *Store) download(ctx context.Context, key string, n int) (*blockData, error) {
	select {
	case s.getSem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	var buf *[]byte
	var room []byte
	if n == s.cfg.BlockSize {
		buf = s.bufs.get()
		room = (*buf)[:0]
	}
	start := time.Now()
	raw, err := object.GetInto(ctx, s.obj, key, room)
	<-s.getSem
	s.stats.get(len(raw), time.Since(start), err)
	if buf != nil && (err != nil || len(raw) == 0 || &raw[0] != &(*buf)[:1][0]) {
		s.bufs.put(buf) // not used
		buf = nil
	}
	if err != nil {
		if errors.Is(err, object.ErrNotExist) {
			return nil, &missingError{fmt.Errorf("block %s: %w", key, err)}
		}
		return nil, fmt.Errorf("get block %s: %w", key, err)
	}
	return newBlockData(raw, buf, s.bufs), nil
}

// prefetch loads blocks first..last of slice id in the background, skipping
// those already in memory or on their way.
func (s *Store) prefetch(id uint64, size uint32, first, last int) {
	for idx := first; idx <= last; idx++ {
		n := blockLen(size, s.cfg.BlockSize, idx)
		key := blockKey(id, idx, n)
		if s.mem.contains(key) {
			continue
		}
		f, leader := s.join(key, false)
		if !leader {
			continue
		}
		s.stats.prefetches.Add(1)
		s.bg.Add(1)
		go func() {
			defer s.bg.Done()
			s.runFetch(key, n, f)
			if f.err != nil && s.ctx.Err() == nil {
				s.log.Debug("prefetch failed", "key", key, "err", f.err)
			}
		}()
	}
}

// Prefetch starts loading, in the background, the blocks that hold
// [off, off+n) of slice id (size bytes), for a reader about to get there
// that ReadAt cannot see coming: one that crosses into the next chunk of
// a file. It never waits and never fails; a block that cannot be loaded
// is an error for the ReadAt that needs it.
func (s *Store) Prefetch(id uint64, size uint32, off, n uint32) {
	end := min(int64(off)+int64(n), int64(size))
	if s.cfg.Readahead <= 0 || int64(off) >= end {
		return
	}
	bs := int64(s.cfg.BlockSize)
	s.prefetch(id, size, int(int64(off)/bs), int((end-1)/bs))
}

// Remove deletes every block of slice id (size bytes) from the store and the
// caches. Missing blocks are fine.
func (s *Store) Remove(ctx context.Context, id uint64, size uint32) error {
	s.ra.forget(id)
	for idx := 0; idx < numBlocks(size, s.cfg.BlockSize); idx++ {
		if err := s.deleteBlock(ctx, blockKey(id, idx, blockLen(size, s.cfg.BlockSize, idx))); err != nil {
			return fmt.Errorf("remove slice %d: %w", id, err)
		}
	}
	return nil
}

func (s *Store) deleteBlock(ctx context.Context, key string) error {
	s.mem.remove(key)
	if s.disk != nil {
		s.disk.remove(key)
	}
	if s.staging != nil {
		s.staging.remove(key)
	}
	s.stats.deletes.Add(1)
	return s.obj.Delete(ctx, key)
}

// syncBlocks makes the blocks written so far durable: staged on local disk
// in writeback mode, and in the object store (syncStore).
func (s *Store) syncBlocks(ctx context.Context) error {
	if s.staging != nil {
		if err := s.staging.sync(ctx); err != nil {
			return fmt.Errorf("flush staged blocks: %w", err)
		}
	}
	return s.syncStore(ctx)
}

// syncStore makes the blocks put so far durable in a store that flushes
// lazily (object.Syncer); other stores need nothing.
func (s *Store) syncStore(ctx context.Context) error {
	if sy, ok := s.obj.(object.Syncer); ok {
		if err := sy.Sync(ctx); err != nil {
			return fmt.Errorf("flush blocks to %s: %w", s.obj, err)
		}
	}
	return nil
}
