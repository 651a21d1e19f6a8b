package chunk

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"unsafe"
)

// directAlign is the alignment O_DIRECT wants of a buffer's address and
// of the length written.
const directAlign = 4096

// canWriteDirect reports whether data can go to disk with O_DIRECT: its
// address is aligned (Go places large allocations at page boundaries) and
// it has at least one aligned block.
func canWriteDirect(data []byte) bool {
	return len(data) >= directAlign && uintptr(unsafe.Pointer(unsafe.SliceData(data)))%directAlign == 0
}

// writeDirect puts data at path through a temporary file (named with
// tempPrefix) and a rename, like atomicfile.Write without sync, but writes
// the aligned bulk of data with O_DIRECT: the disk cache fills at the pace
// of a streaming reader, and copying every block into the page cache cost
// that reader more CPU than the download itself, and evicted pages the
// kernel could have kept for the files being read. It returns errNoDirect,
// having written nothing, when data is not aligned in memory or the file
// system refuses O_DIRECT.
func writeDirect(path string, data []byte, tempPrefix string) error {
	if !canWriteDirect(data) {
		return errNoDirect
	}
	bulk := len(data) / directAlign * directAlign
	tmp := filepath.Join(filepath.Dir(path), fmt.Sprintf("%s%d", tempPrefix, rand.Uint64()))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_DIRECT, 0o644)
	if errors.Is(err, syscall.EINVAL) {
		return errNoDirect // tmpfs and some others
	}
	if err != nil {
		return err
	}
	_, err = f.Write(data[:bulk])
	if err == nil && bulk < len(data) {
		// The unaligned tail goes through the page cache.
		if err = setDirect(f, false); err == nil {
			_, err = f.Write(data[bulk:])
		}
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
			return errNoDirect
		}
	}
	return err
}

// setDirect turns O_DIRECT on or off for f.
func setDirect(f *os.File, on bool) error {
	raw, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var errno syscall.Errno
	err = raw.Control(func(fd uintptr) {
		var flags uintptr
		flags, _, errno = syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
		if errno != 0 {
			return
		}
		if on {
			flags |= syscall.O_DIRECT
		} else {
			flags &^= syscall.O_DIRECT
		}
		_, _, errno = syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_SETFL, flags)
	})
	if err != nil {
		return err
	}
	if errno != 0 {
		return errno
	}
	return nil
}
