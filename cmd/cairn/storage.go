package main

import (
	"errors"
	"fmt"
	"net/url"

	"cairn/chunk"
	"cairn/meta/engines"
	"cairn/object"

	"github.com/spf13/pflag"
)

// storeFlags are the object-store settings 'cairn format' and 'cairn mount'
// share: S3 credentials, which are never stored in the volume (see
// volume.Options.Store).
type storeFlags struct {
	accessKey string
	secretKey string
}

func (s *storeFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&s.accessKey, "access-key", "", "S3 access key (default $"+object.AccessKeyEnv+" or $"+object.CommonAccessKeyEnv+"); never stored in the volume")
	fs.StringVar(&s.secretKey, "secret-key", "", "S3 secret key (default $"+object.SecretKeyEnv+" or $"+object.CommonSecretKeyEnv+", which keep it out of the process list); never stored or printed")
}

// options are the object.Options the flags stand for; what is empty is
// read from the environment by package object (object.Options.Credentials).
func (s *storeFlags) options() object.Options {
	return object.Options{AccessKey: s.accessKey, SecretKey: s.secretKey}
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

// dataFlags tune the data path of a mount.
type dataFlags struct {
	writeback    bool
	uploaders    int
	downloaders  int
	cacheWrites  string
	writeCaching chunk.WriteCaching // cacheWrites, read by check
}

func (d *dataFlags) register(fs *pflag.FlagSet) {
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

// blocks is the block-store configuration the flags stand for; the
// volume's settings fill in the rest.
func (d *dataFlags) blocks(bufferSize int64, cacheSize int64) chunk.Config {
	return chunk.Config{
		BufferSize:  bufferSize,
		CacheSize:   cacheSize,
		Uploaders:   d.uploaders,
		Downloaders: d.downloaders,
		Writeback:   d.writeback,
		CacheWrites: d.writeCaching,
	}
}
