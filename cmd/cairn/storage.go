package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"cairn/chunk"
	"cairn/meta"
	"cairn/meta/engines"
	"cairn/object"
)

// storeFlags are the object-store settings 'cairn format' and 'cairn mount'
// share: S3 credentials. Credentials are never written to the metadata
// engine (meta.Format has no place for them, on purpose): every command
// that reaches an S3 volume's blocks takes them from its flags or from
// $CAIRN_ACCESS_KEY and $CAIRN_SECRET_KEY.
type storeFlags struct {
	accessKey string
	secretKey string
}

func (s *storeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.accessKey, "access-key", "", "S3 access key (default $"+object.AccessKeyEnv+"); never stored in the volume")
	fs.StringVar(&s.secretKey, "secret-key", "", "S3 secret key (default $"+object.SecretKeyEnv+", which keeps it out of the process list); never stored or printed")
}

// options are the object.Options the flags stand for; object.Open fills
// what is empty from the environment.
func (s *storeFlags) options() object.Options {
	return object.Options{AccessKey: s.accessKey, SecretKey: s.secretKey}
}

// checkCredentials says which S3 credential is missing, before any request
// is made that would fail with a less helpful message.
func (s *storeFlags) checkCredentials(storage string) error {
	if storage != "s3" {
		return nil
	}
	var missing []string
	if s.accessKey == "" && os.Getenv(object.AccessKeyEnv) == "" {
		missing = append(missing, "an access key (--access-key or $"+object.AccessKeyEnv+")")
	}
	if s.secretKey == "" && os.Getenv(object.SecretKeyEnv) == "" {
		missing = append(missing, "a secret key ($"+object.SecretKeyEnv+" or --secret-key)")
	}
	if len(missing) > 0 {
		return fmt.Errorf("S3 storage needs %s; credentials are not stored in the volume", strings.Join(missing, " and "))
	}
	return nil
}

// checkS3Bucket rejects a bucket URL that carries credentials, which would
// end up in plain text in the metadata engine, and one that is not a URL.
func checkS3Bucket(bucket string) error {
	if bucket == "" {
		return errors.New("S3 storage needs --bucket http(s)://host:port/bucket (or http(s)://bucket.host)")
	}
	u, err := url.Parse(bucket)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--bucket %q is not an S3 URL: use http(s)://host:port/bucket (or http(s)://bucket.host)", engines.Redact(bucket))
	}
	if u.User != nil {
		return fmt.Errorf("--bucket %s contains credentials, which would be stored in the volume: give --access-key and $%s instead", engines.Redact(bucket), object.SecretKeyEnv)
	}
	return nil
}

// prepareStore makes sure the object store can take the volume's blocks
// before the volume is formatted: the bucket exists (it is created when
// missing) and accepts writes with these credentials.
func prepareStore(ctx context.Context, storage, bucket string, sf *storeFlags) error {
	if storage == "s3" {
		if err := checkS3Bucket(bucket); err != nil {
			return err
		}
	}
	if err := sf.checkCredentials(storage); err != nil {
		return err
	}
	store, err := object.Open(storage, bucket, sf.options())
	if err != nil {
		return err
	}
	if err := store.Create(ctx); err != nil {
		switch {
		case errors.Is(err, object.ErrPermanent):
			return err // says what is wrong and what to do
		case storage == "s3":
			return fmt.Errorf("%w (is the S3 endpoint in --bucket up and reachable?)", err)
		}
		return fmt.Errorf("%w (give a writable --bucket)", err)
	}
	return nil
}

// dataFlags tune the data path of a mount.
type dataFlags struct {
	writeback    bool
	uploaders    int
	downloaders  int
	cacheWrites  string
	writeCaching chunk.WriteCaching // cacheWrites, read by check
}

func (d *dataFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&d.writeback, "writeback", false, "fsync returns once blocks are durable in CACHE-DIR/staging; they are uploaded in the background (also after a restart)")
	fs.IntVar(&d.uploaders, "upload-concurrency", 10, "blocks uploaded at once")
	fs.IntVar(&d.downloaders, "download-concurrency", 10, "blocks downloaded or prefetched at once")
	fs.StringVar(&d.cacheWrites, "cache-writes", "small", "written blocks also kept in the disk cache: small (blocks shorter than the block size: small files, tails of big ones), all, or none")
}

func (d *dataFlags) check(cacheDir string) error {
	if d.uploaders <= 0 || d.downloaders <= 0 {
		return fmt.Errorf("--upload-concurrency and --download-concurrency must be at least 1")
	}
	var err error
	if d.writeCaching, err = chunk.ParseWriteCaching(d.cacheWrites); err != nil {
		return fmt.Errorf("--cache-writes: %w", err)
	}
	if d.writeback && cacheDir == "" {
		return fmt.Errorf("--writeback stages blocks in the cache directory: give a --cache-dir")
	}
	return nil
}

// blockStoreConfig is what 'cairn mount' needs to open a volume's blocks.
type blockStoreConfig struct {
	store      storeFlags
	data       dataFlags
	cacheDir   string // this volume's own directory under --cache-dir, or ""
	cacheSize  int64
	bufferSize int64
}

// openBlockStore opens the object store of the volume, proves that it
// answers (so that bad credentials, an unreachable endpoint or a missing
// bucket are one line at mount, not EIO later), uploads blocks an earlier
// --writeback mount left staged, and opens the block store over it.
func openBlockStore(ctx context.Context, format meta.Format, c blockStoreConfig) (*chunk.Store, error) {
	if err := c.data.check(c.cacheDir); err != nil {
		return nil, err
	}
	if err := c.store.checkCredentials(format.Storage); err != nil {
		return nil, fmt.Errorf("volume %q keeps its blocks in %s: %w", format.Name, engines.Redact(format.Bucket), err)
	}
	opts := c.store.options()
	// The block store flushes a local-directory store once per slice
	// instead of once per block (see object.Syncer).
	opts.DeferSync = true
	obj, err := object.Open(format.Storage, format.Bucket, opts)
	if err != nil {
		return nil, fmt.Errorf("open the object store of volume %q: %w", format.Name, err)
	}
	if format.Storage == "s3" {
		if _, err := obj.List(ctx, "", "", 1); err != nil {
			if errors.Is(err, object.ErrPermanent) {
				return nil, fmt.Errorf("volume %q: %w", format.Name, err)
			}
			return nil, fmt.Errorf("the object store of volume %q does not answer: %w", format.Name, err)
		}
	}
	cfg := chunk.Config{
		BlockSize:   int(format.BlockSize),
		Compression: format.Compression,
		BufferSize:  c.bufferSize,
		CacheDir:    c.cacheDir,
		CacheSize:   c.cacheSize,
		Uploaders:   c.data.uploaders,
		Downloaders: c.data.downloaders,
		Writeback:   c.data.writeback,
		CacheWrites: c.data.writeCaching,
	}
	if !cfg.Writeback && c.cacheDir != "" {
		if err := drainStaged(obj, cfg); err != nil {
			return nil, err
		}
		if format.Storage == "file" {
			// The blocks are on a local disk already: a disk cache would
			// only write every block read a second time.
			cfg.CacheDir = ""
		}
	}
	store, err := chunk.New(obj, cfg)
	if err != nil {
		return nil, fmt.Errorf("open the block store of volume %q: %w", format.Name, err)
	}
	return store, nil
}

// drainStaged uploads the blocks an earlier --writeback mount staged and
// did not upload, before a mount without --writeback starts: their slices
// are committed, so the files that use them would read as EIO until then.
func drainStaged(obj object.Store, cfg chunk.Config) error {
	dir := filepath.Join(cfg.CacheDir, "staging")
	n := countStaged(dir)
	if n == 0 {
		return nil
	}
	slog.Info("uploading blocks an earlier --writeback mount staged", "blocks", n, "dir", dir)
	cfg.Writeback = true
	s, err := chunk.New(obj, cfg)
	if err != nil {
		return fmt.Errorf("upload blocks staged in %s: %w", dir, err)
	}
	s.Close() // uploads what is staged, stopping at the first failure
	if left := countStaged(dir); left > 0 {
		return fmt.Errorf("%d blocks staged in %s by an earlier --writeback mount could not be uploaded (see the log); mount with --writeback to keep them and retry in the background", left, dir)
	}
	return nil
}

// countStaged counts the staged blocks under dir (none if it is missing).
func countStaged(dir string) int {
	n := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	return n
}
