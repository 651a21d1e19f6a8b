package volume

import (
	"time"

	"cairn/chunk"
	"cairn/meta"
	"cairn/object"
	"cairn/vfs"
)

// Options say how to open a volume. The zero value opens it with every
// layer's defaults: no local cache, no writeback, credentials from the
// environment. Each layer's own settings are passed through as that
// layer's configuration; fields Open must decide itself are noted.
type Options struct {
	// Store configures the object store: S3 credentials (empty ones are
	// read from the environment, see object.Options.Credentials; they are
	// never stored in the volume), timeouts and retries. Open sets DeferSync.
	Store object.Options
	// CacheDir is this machine's directory of local block caches: each
	// volume gets a directory of its own in it, named by its UUID, for its
	// disk cache and its writeback staging. "" keeps no cache on disk.
	CacheDir string
	// Blocks tunes the block store: memory for writes, cache size,
	// concurrency, writeback, which written blocks are cached. Open sets
	// BlockSize and Compression from the volume's settings and CacheDir
	// from the field above.
	Blocks chunk.Config
	// Client configures the metadata client: cache lifetimes, permission
	// checks, and the description of its session.
	Client meta.ClientConfig
	// IOTimeout is how long an operation of the file system waits for a
	// metadata server or object store that does not answer (stopped,
	// restarting, unreachable) before it fails with EIO: Open wraps the
	// engine with meta.WithServerWait and gives the object store this
	// retry budget (object.Options.RetryFor) once it has answered. 0
	// leaves the engine's and the store's own retries alone.
	IOTimeout time.Duration
	// VFS configures the file system: read-only, permission checks on
	// open, flush and compaction.
	VFS vfs.Config
	// Subdir, when not "" or "/", is the directory of the volume (a path
	// from its root) that the VFS serves as its root: Open looks it up
	// and sets VFS.Root, and fails with one line when it is missing or
	// not a directory.
	Subdir string
	// WrapEngine and WrapStore, when set, wrap the metadata engine and
	// the object store once they are open, before the client and the
	// block store are built over them: how a mount instruments them
	// (package metrics). Volume.Engine and Volume.Objects are then the
	// wrappers.
	WrapEngine func(meta.Engine) (meta.Engine, error)
	WrapStore  func(object.Store) (object.Store, error)
	// BackupMeta, when positive, is how often a backup of the metadata is
	// written into the volume's object store (see package backup); 0
	// writes none. Callers check it against MinBackupInterval.
	BackupMeta time.Duration
	// Create, when not nil, formats a URL that holds no volume with these
	// settings (the benchmarks' throw-away volumes) instead of failing;
	// Volume.Formatted then says so.
	Create *meta.Format
}
