// Package atomicfile replaces files whole: a reader or a crash sees the old
// content or the new, never a torn mix. It is the one place where cairn
// writes a file by temporary name and rename (object blocks, the block
// cache, staged blocks).
package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"

	"cairn/internal/directio"
)

// ErrNoDirect is returned by WriteDirect, which then wrote nothing, when
// the data or the file system does not allow O_DIRECT.
var ErrNoDirect = directio.ErrRefused

// Write puts data at path through a temporary file in the same directory,
// named with tempPrefix so that a scan can drop leftovers of a crash. With
// sync the data is fsync'd before the rename; the rename itself becomes
// durable only after SyncDir of the directory. The directory must exist.
func Write(path string, data []byte, tempPrefix string, sync bool) error {
	f, err := os.CreateTemp(filepath.Dir(path), tempPrefix)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// SyncDir makes the entries of dir (a rename into it) durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// WritePreferDirect is WriteDirect where it can be and data holds
// directio.Min or more, Write elsewhere. refused remembers that the file
// system refused O_DIRECT, so that a store asks once rather than for
// every block.
func WritePreferDirect(path string, data []byte, tempPrefix string, sync bool, refused *atomic.Bool) error {
	if len(data) >= directio.Min && !refused.Load() && CanWriteDirect(data) {
		err := WriteDirect(path, data, tempPrefix, sync)
		if !errors.Is(err, ErrNoDirect) {
			return err
		}
		refused.Store(true)
	}
	return Write(path, data, tempPrefix, sync)
}
