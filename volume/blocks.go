package volume

import (
	"fmt"
	"log/slog"
	"path/filepath"

	"cairn/chunk"
	"cairn/meta"
	"cairn/object"
)

// openBlocks opens the block store of the volume over obj, in the
// volume's own directory under opts.CacheDir, after uploading the blocks
// an earlier writeback opening left staged there.
func openBlocks(obj object.Store, format meta.Format, opts Options) (*chunk.Store, error) {
	cfg := opts.Blocks
	cfg.BlockSize = int(format.BlockSize)
	cfg.Compression = format.Compression
	cfg.CacheDir = ""
	if opts.CacheDir != "" {
		cfg.CacheDir = filepath.Join(opts.CacheDir, format.UUID)
	}
	if !cfg.Writeback && cfg.CacheDir != "" {
		if err := uploadStaged(obj, cfg); err != nil {
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

// uploadStaged uploads the blocks an earlier --writeback mount staged and
// did not upload, before a block store without writeback starts: their
// slices are committed, so the files that use them would read as EIO
// until then.
func uploadStaged(obj object.Store, cfg chunk.Config) error {
	n := chunk.StagedBlocks(cfg.CacheDir)
	if n == 0 {
		return nil
	}
	dir := chunk.StagingDir(cfg.CacheDir)
	slog.Info("uploading blocks an earlier --writeback mount staged", "blocks", n, "dir", dir)
	left, err := chunk.UploadStaged(obj, cfg)
	if err != nil {
		return err
	}
	if left > 0 {
		return fmt.Errorf("%d blocks staged in %s by an earlier --writeback mount could not be uploaded (see the log); mount with --writeback to keep them and retry in the background", left, dir)
	}
	return nil
}
