// Package directio reads and writes block files with O_DIRECT, from the
// disk straight into cairn's buffers and back: blocks are read once into
// cairn's own caches and written once, so a copy through the page cache
// would only cost CPU (more than anything else cairn does with a block)
// and push out pages the kernel could keep for something else. File
// systems that refuse O_DIRECT (tmpfs, some network file systems) are
// reported as ErrRefused, and the callers use ordinary I/O there.
package directio

import (
	"errors"
	"io"
	"os"
	"syscall"
	"unsafe"
)

// Align is the alignment O_DIRECT wants of a buffer's address and of the
// length read or written.
const Align = 4096

// Min is the smallest transfer worth O_DIRECT. Below it the page cache's
// copy costs less than a disk operation the caller waits for: a read of a
// small object often finds it cached, and a small block written with
// O_DIRECT waited about 70-90 µs for the disk that its fsync, which writes
// the file's size and the data together, then had to wait for again.
const Min = 64 << 10

// ErrRefused means the file system (or the buffer) does not allow O_DIRECT.
var ErrRefused = errors.New("O_DIRECT not possible")

// Aligned reports whether b starts at an Align boundary (Go places large
// allocations at page boundaries).
func Aligned(b []byte) bool {
	return uintptr(unsafe.Pointer(unsafe.SliceData(b)))%Align == 0
}

// ReadAll reads all size bytes of the open file fh with O_DIRECT into a
// buffer of its own. It returns nil and no error when the buffer came out
// unaligned, ErrRefused when the file system refuses; the caller then
// reads as usual, and fh is left without O_DIRECT.
func ReadAll(fh *os.File, size int64) ([]byte, error) {
	room := (size + Align - 1) / Align * Align
	buf := make([]byte, room) // a large allocation: page aligned
	if room == 0 || !Aligned(buf) {
		return nil, nil
	}
	if err := Set(fh, true); err != nil {
		return nil, ErrRefused
	}
	n, err := fh.ReadAt(buf, 0)
	if errors.Is(err, syscall.EINVAL) {
		Set(fh, false)
		return nil, ErrRefused
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if int64(n) != size {
		return nil, io.ErrUnexpectedEOF // changed under us
	}
	return buf[:n], nil
}

// Set turns O_DIRECT on or off for the open file f.
func Set(f *os.File, on bool) error {
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
