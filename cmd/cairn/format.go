package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"cairn/meta"
	"cairn/meta/engines"
	"cairn/volume"

	"github.com/spf13/cobra"
)

// Limits on --block-size: a block must fit in a chunk many times over and
// stay small enough to be cached and uploaded whole.
const (
	minBlockSize     = 64 << 10
	maxBlockSize     = 16 << 20
	defaultBlockSize = 4 << 20
)

// volumeName is what a volume may be called: it names the default bucket
// directory and may become an S3 bucket name, so it follows S3's rules.
var volumeName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$`)

// formatFlags are the settings 'cairn format' takes from its command line.
type formatFlags struct {
	storage   string
	bucket    string
	blockSize byteSize
	compress  string
	capacity  byteSize
	inodes    uint64
	trashDays int
	force     bool
	store     storeFlags
}

func formatCommand() *cobra.Command {
	c := &cobra.Command{
		Use:     "format META-URL NAME",
		Short:   "create a volume (change its settings with config)",
		Example: "  cairn format sqlite3:///var/lib/cairn/vol.db vol\n  cairn format redis://localhost:6379/1 vol --storage s3 --bucket https://s3.example.com/vol --compress lz4\n  META_PASSWORD=secret cairn format postgres://cairn@db/cairn vol --capacity 1T",
		Args:    exactArgs(2),
	}
	fs := c.Flags()
	var f formatFlags
	f.blockSize = defaultBlockSize
	fs.StringVar(&f.storage, "storage", "file", "object store kind: file (a local directory), s3 (S3 or compatible) or mem (memory, lost at exit; for tests)")
	fs.StringVar(&f.bucket, "bucket", "", "where the blocks go: a directory for --storage file (default "+defaultBucketHint()+"), http(s)://host:port/bucket for s3")
	f.store.register(fs)
	fs.Var(&f.blockSize, "block-size", "size of one stored block, 64K to 16M, a power of two (e.g. 4M)")
	fs.StringVar(&f.compress, "compress", "none", "compression of each block: none, lz4 or zstd")
	fs.Var(&f.capacity, "capacity", "space limit shown by df, e.g. 100G (0: unlimited)")
	fs.Uint64Var(&f.inodes, "inodes", 0, "limit on the number of files (0: unlimited)")
	fs.IntVar(&f.trashDays, "trash-days", 1, "days a deleted file is kept in .trash at the volume's root, for 'cairn restore' (0: no trash, deletions are final)")
	fs.BoolVar(&f.force, "force", false, "refused: format only creates volumes; change a volume's settings with 'cairn config'")
	c.RunE = func(_ *cobra.Command, pos []string) error {
		metaURL, name := pos[0], pos[1]
		if f.force {
			return fmt.Errorf("format --force no longer changes a volume: format only creates volumes; change the settings of the volume at %s with 'cairn config %s --capacity …' (see 'cairn config -h')", engines.Redact(metaURL), engines.Redact(metaURL))
		}

		if err := checkFormatFlags(name, &f); err != nil {
			return err
		}
		if strings.HasPrefix(metaURL, "mem://") {
			return fmt.Errorf("mem:// keeps a volume inside one process only, so nothing could mount what format makes there; use a database, e.g. sqlite3:///var/lib/cairn/%s.db", name)
		}
		ctx := context.Background()
		eng, err := volume.OpenEngine(metaURL)
		if err != nil {
			return err
		}
		defer eng.Close()

		old, err := eng.Load(ctx)
		exists := err == nil
		if err != nil && !errors.Is(err, meta.ErrNotFormatted) {
			return fmt.Errorf("read the volume at %s: %w", engines.Redact(metaURL), err)
		}
		if err := meta.CheckMoved(ctx, eng); exists && err != nil {
			return fmt.Errorf("%s: %w", engines.Redact(metaURL), err)
		}
		if exists {
			return fmt.Errorf("%s already holds volume %q (uuid %s); change its settings with 'cairn config %s', or remove it with 'cairn destroy'", engines.Redact(metaURL), old.Name, old.UUID, engines.Redact(metaURL))
		}

		nf := meta.Format{
			Name:        name,
			Storage:     f.storage,
			Bucket:      f.bucket,
			BlockSize:   uint32(f.blockSize),
			Compression: f.compress,
			Capacity:    uint64(f.capacity),
			Inodes:      f.inodes,
			TrashDays:   f.trashDays,
			Version:     meta.FormatVersion,
		}
		if nf.UUID, err = newUUID(); err != nil {
			return err
		}
		if nf.Bucket == "" && nf.Storage == "file" {
			if nf.Bucket, err = defaultBucket(name); err != nil {
				return err
			}
		}
		if nf.Storage == "file" {
			abs, err := filepath.Abs(nf.Bucket)
			if err != nil {
				return fmt.Errorf("bucket %q: %w", nf.Bucket, err)
			}
			nf.Bucket = abs
		}
		if nf.Storage == "s3" {
			if err := checkS3Bucket(nf.Bucket); err != nil {
				return err
			}
		}
		if err := volume.CreateStore(ctx, nf.Storage, nf.Bucket, f.store.options()); err != nil {
			return err
		}
		if err := eng.Init(ctx, nf, false); err != nil {
			return fmt.Errorf("format volume %q at %s: %w", name, engines.Redact(metaURL), err)
		}
		if nf.Storage == "mem" {
			warn(os.Stderr, "warning: --storage mem keeps blocks in the memory of each mount; they are lost at unmount (use it for tests only)")
		}
		where := nf.Storage
		if nf.Bucket != "" {
			where += " " + engines.Redact(nf.Bucket)
		}
		inform(os.Stdout, "formatted volume %q (uuid %s) in %s, blocks in %s, block size %s, compression %s",
			nf.Name, nf.UUID, engines.Redact(metaURL), where, humanBytes(uint64(nf.BlockSize)), nf.Compression)
		return nil
	}
	return c
}

// checkFormatFlags rejects settings no volume may have, before anything is
// opened or written.
func checkFormatFlags(name string, f *formatFlags) error {
	if !volumeName.MatchString(name) {
		return fmt.Errorf("invalid volume name %q: use 3 to 63 lowercase letters, digits and hyphens, starting and ending with a letter or digit", name)
	}
	switch f.storage {
	case "file", "mem":
	case "s3":
		if f.bucket != "" { // an empty one is refused below, once the URL is known free
			if err := checkS3Bucket(f.bucket); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("unknown --storage %q: use file, s3 or mem", f.storage)
	}
	bs := uint64(f.blockSize)
	if bs < minBlockSize || bs > maxBlockSize || bs&(bs-1) != 0 {
		return fmt.Errorf("invalid --block-size %s: use a power of two from 64K to 16M, e.g. 4M", humanBytes(bs))
	}
	switch f.compress {
	case "none", "lz4", "zstd":
	default:
		return fmt.Errorf("unknown --compress %q: use none, lz4 or zstd", f.compress)
	}
	if err := checkBudget("capacity", f.capacity); err != nil {
		return err
	}
	if f.trashDays < 0 {
		return fmt.Errorf("invalid --trash-days %d: use 0 or more", f.trashDays)
	}
	return nil
}

// defaultBucket is where a volume's blocks go when --bucket is not given:
// /var/lib/cairn/NAME for root, $HOME/.cairn/NAME for everyone else.
func defaultBucket(name string) (string, error) {
	if os.Geteuid() == 0 {
		return filepath.Join("/var/lib/cairn", name), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home directory for the default bucket (%v): give --bucket DIR", err)
	}
	return filepath.Join(home, ".cairn", name), nil
}

func defaultBucketHint() string {
	if os.Geteuid() == 0 {
		return "/var/lib/cairn/NAME"
	}
	return "$HOME/.cairn/NAME"
}

// newUUID makes a random (version 4) UUID.
func newUUID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("make a volume uuid: %w", err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}
