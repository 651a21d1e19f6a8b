package atomicfile

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"

	"cairn/internal/directio"
)

// CanWriteDirect reports whether WriteDirect can take data: its address is
// aligned (Go places large allocations at page boundaries) and it holds at
// least one aligned block.
func CanWriteDirect(data []byte) bool {
	return len(data) >= directio.Align && directio.Aligned(data)
}

// WriteDirect is Write with the aligned bulk of data written with O_DIRECT,
// from data itself to the disk: no copy into the page cache, which for
// blocks that are written once and read back rarely costs more CPU than
// everything else cairn does with them, and pushes out pages the kernel
// could keep for something else. It returns ErrNoDirect, having written
// nothing, when CanWriteDirect(data) is false or the file system refuses
// O_DIRECT (tmpfs, some network file systems): use Write then.
func WriteDirect(path string, data []byte, tempPrefix string, sync bool) error {
	if !CanWriteDirect(data) {
		return ErrNoDirect
	}
	bulk := len(data) / directio.Align * directio.Align
	tmp := filepath.Join(filepath.Dir(path), fmt.Sprintf("%s%d", tempPrefix, rand.Uint64()))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_DIRECT, 0o600)
	if errors.Is(err, syscall.EINVAL) {
		return ErrNoDirect
	}
	if err != nil {
		return err
	}
	_, err = f.Write(data[:bulk])
	if err == nil && bulk < len(data) {
		// The unaligned tail goes through the page cache.
		if err = directio.Set(f, false); err == nil {
			_, err = f.Write(data[bulk:])
		}
	}
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		if errors.Is(err, syscall.EINVAL) {
			return ErrNoDirect
		}
	}
	return err
}
