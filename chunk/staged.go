package chunk

import (
	"fmt"
	"io/fs"
	"path/filepath"

	"cairn/object"
)

// StagingDir is the directory under cacheDir where a Store with Writeback
// keeps the blocks it has not uploaded yet.
func StagingDir(cacheDir string) string {
	return filepath.Join(cacheDir, "staging")
}

// StagedBlocks counts the blocks staged under cacheDir and not uploaded yet
// (none when there is no staging directory).
func StagedBlocks(cacheDir string) int {
	n := 0
	filepath.WalkDir(StagingDir(cacheDir), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	return n
}

// UploadStaged uploads to obj the blocks an earlier Store with Writeback
// staged under cfg.CacheDir and did not upload, stopping at the first
// failure (which is logged), and returns how many are left staged. A Store
// without Writeback does not read the staging directory, so blocks left
// there must be uploaded first: their slices are committed, and the files
// that use them read as EIO until then.
func UploadStaged(obj object.Store, cfg Config) (left int, err error) {
	if StagedBlocks(cfg.CacheDir) == 0 {
		return 0, nil
	}
	cfg.Writeback = true
	s, err := New(obj, cfg)
	if err != nil {
		return StagedBlocks(cfg.CacheDir), fmt.Errorf("upload blocks staged in %s: %w", StagingDir(cfg.CacheDir), err)
	}
	s.Close()
	return StagedBlocks(cfg.CacheDir), nil
}
