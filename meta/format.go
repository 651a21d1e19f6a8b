package meta

import (
	"errors"
	"fmt"
)

// FormatVersion is the on-disk layout version written by this release.
const FormatVersion = 1

// Format is a volume's settings, written once by 'cairn format' and read by
// every client at mount.
type Format struct {
	Name        string `json:"name"`
	UUID        string `json:"uuid"`
	Storage     string `json:"storage"`     // object store kind: "file", "mem", "s3"
	Bucket      string `json:"bucket"`      // where the objects live, in the store's own terms
	BlockSize   uint32 `json:"block_size"`  // bytes
	Compression string `json:"compression"` // "none", "lz4", "zstd"
	Capacity    uint64 `json:"capacity"`    // bytes; 0 is unlimited
	Inodes      uint64 `json:"inodes"`      // 0 is unlimited
	TrashDays   int    `json:"trash_days"`
	Version     int    `json:"version"`
	// CopyOf and CopyID mark a volume that an online migration (package
	// migrate) copied in: the source's URL without its password, and the
	// attempt's id. They stay after the switch; while the source has not
	// moved, the copy is unfinished and a rerun may empty it.
	CopyOf string `json:"copy_of,omitempty"`
	CopyID string `json:"copy_id,omitempty"`
}

// ErrNewerFormat is a volume written by a newer cairn, in a layout this
// one does not know: it must not be mounted, checked or changed.
var ErrNewerFormat = errors.New("upgrade cairn to open it")

// CheckVersion refuses settings of a newer format version. Every engine's
// Load calls it, so no command works on a volume it could misread.
func CheckVersion(f Format) error {
	if f.Version > FormatVersion {
		return fmt.Errorf("the volume has format version %d and this cairn knows only up to %d: %w", f.Version, FormatVersion, ErrNewerFormat)
	}
	return nil
}
