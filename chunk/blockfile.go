package chunk

import (
	"errors"
	"sync/atomic"

	"cairn/internal/atomicfile"
)

// writeBlockFile puts a stored block in a file of the disk cache or of
// the staging area. Blocks are written once and read back rarely, so they
// go with O_DIRECT where the file system allows it: copying every block
// into the page cache cost a streaming reader of MinIO more CPU than the
// download itself. noDirect remembers a refusal, so it is asked once.
func writeBlockFile(path string, raw []byte, sync bool, noDirect *atomic.Bool) error {
	if !noDirect.Load() && atomicfile.CanWriteDirect(raw) {
		err := atomicfile.WriteDirect(path, raw, diskTempPrefix, sync)
		if !errors.Is(err, atomicfile.ErrNoDirect) {
			return err
		}
		noDirect.Store(true)
	}
	return atomicfile.Write(path, raw, diskTempPrefix, sync)
}
