package vfs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"cairn/chunk"
	"cairn/meta"
)

// Config tunes a VFS.
type Config struct {
	// ReadOnly refuses every change with EROFS.
	ReadOnly bool
	// CheckPermission makes open check the caller's access; off when the
	// kernel does it (default_permissions).
	CheckPermission bool
	// CompactAfter is the length of a chunk's slice list that triggers a
	// compaction (default 100).
	CompactAfter int
	// FlushAfter commits buffered writes of a file idle that long
	// (default 1s), bounding what a crash can lose.
	FlushAfter time.Duration
	// GCInterval is how often the blocks of dead slices are removed
	// (default 10s; negative: never).
	GCInterval time.Duration
	// MetaURL is the volume's metadata URL with any password masked,
	// reported in .stats so that tools find the volume's own server.
	MetaURL string
	// Root is the directory served as the root (0: the volume's root,
	// inode 1); a mount with --subdir sets it. See VFS.Root.
	Root meta.Ino
}

func (c *Config) defaults() {
	if c.CompactAfter == 0 {
		c.CompactAfter = 100
	}
	if c.FlushAfter == 0 {
		c.FlushAfter = time.Second
	}
	if c.GCInterval == 0 {
		c.GCInterval = 10 * time.Second
	}
}

// VFS is a mounted volume's file system. All methods are safe for
// concurrent use. Errors are meta's sentinels (meta.Errno values)
// possibly wrapped with context; anything else is an I/O error.
type VFS struct {
	client *meta.Client
	store  *chunk.Store
	format meta.Format
	cfg    Config

	metrics      *meta.Metrics // FUSE requests
	requests     requestCounters
	pendingBytes atomic.Int64 // written and not yet committed

	mu         sync.Mutex
	files      map[meta.Ino]*file
	handles    map[uint64]*handle
	nextFh     uint64
	compacting map[compactKey]bool
	lockOwners map[meta.Ino]map[uint64]bool // who took byte-range locks here
	closed     bool
	invalidate func(meta.Ino)         // drops the kernel's cached attributes
	control    atomic.Pointer[string] // see SetControlAddress

	stop   chan struct{}
	gcKick chan struct{} // something may have become garbage
	bg     sync.WaitGroup
}

// New builds the file system over a started client and a block store.
func New(client *meta.Client, store *chunk.Store, format meta.Format, cfg Config) *VFS {
	cfg.defaults()
	v := &VFS{
		client:     client,
		store:      store,
		format:     format,
		cfg:        cfg,
		metrics:    meta.NewMetrics(),
		files:      make(map[meta.Ino]*file),
		handles:    make(map[uint64]*handle),
		nextFh:     1,
		compacting: make(map[compactKey]bool),
		lockOwners: make(map[meta.Ino]map[uint64]bool),
		stop:       make(chan struct{}),
		gcKick:     make(chan struct{}, 1),
	}
	v.bg.Add(1)
	go v.flusher()
	if cfg.GCInterval > 0 && !cfg.ReadOnly {
		v.bg.Add(1)
		go v.collector()
	}
	return v
}

// SetInvalidator installs fn, which makes the kernel forget what it
// cached of an inode's attributes; Open calls it when it finds that
// another client changed the file (close-to-open consistency).
func (v *VFS) SetInvalidator(fn func(meta.Ino)) {
	v.mu.Lock()
	v.invalidate = fn
	v.mu.Unlock()
}

// Client returns the metadata client the VFS runs on.
func (v *VFS) Client() *meta.Client { return v.client }

// MetaURL is the volume's metadata URL with any password masked, as the
// mount was given it.
func (v *VFS) MetaURL() string { return v.cfg.MetaURL }

// Format returns the volume's settings.
func (v *VFS) Format() meta.Format { return v.format }

// Observe records the latency of one FUSE request named op.
func (v *VFS) Observe(op string, d time.Duration) { v.metrics.Observe("fuse."+op, d) }

// FlushAll commits every buffered write.
func (v *VFS) FlushAll(ctx context.Context) error {
	v.mu.Lock()
	files := make([]*file, 0, len(v.files))
	for _, f := range v.files {
		files = append(files, f)
	}
	v.mu.Unlock()
	var errs []error
	for _, f := range files {
		if err := v.flush(ctx, f); err != nil {
			errs = append(errs, fmt.Errorf("flush inode %d: %w", f.ino, err))
		}
	}
	return errors.Join(errs...)
}

// Close commits buffered writes and stops the background work. It closes
// neither the client nor the store.
func (v *VFS) Close(ctx context.Context) error {
	err := v.FlushAll(ctx)
	v.mu.Lock()
	v.closed = true
	v.mu.Unlock()
	close(v.stop)
	v.bg.Wait()
	return err
}

// flusher commits the writes of files that stopped writing a while ago.
func (v *VFS) flusher() {
	defer v.bg.Done()
	t := time.NewTicker(v.cfg.FlushAfter / 2)
	defer t.Stop()
	for {
		select {
		case <-v.stop:
			return
		case <-t.C:
		}
		v.mu.Lock()
		var idle []*file
		for _, f := range v.files {
			idle = append(idle, f)
		}
		v.mu.Unlock()
		for _, f := range idle {
			// A file whose lock is taken is being written to: not idle.
			// Waiting for it could wait for memory that only the idle
			// files sealed here would free.
			if !f.mu.TryLock() {
				continue
			}
			if len(f.open) > 0 && time.Since(f.lastWrite) >= v.cfg.FlushAfter {
				v.sealAll(f)
			}
			f.mu.Unlock()
		}
	}
}

// collector removes the blocks of slices no file references any more.
func (v *VFS) collector() {
	defer v.bg.Done()
	t := time.NewTicker(v.cfg.GCInterval)
	defer t.Stop()
	for {
		select {
		case <-v.stop:
			return
		case <-t.C:
		case <-v.gcKick:
			// Let a burst of deletes finish before collecting.
			select {
			case <-v.stop:
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
		if _, err := v.CollectGarbage(context.Background()); err != nil {
			slog.Warn("remove dead slices", "err", err)
		}
	}
}

// kickGC asks the collector to run soon: data may have been freed.
func (v *VFS) kickGC() {
	select {
	case v.gcKick <- struct{}{}:
	default:
	}
}
