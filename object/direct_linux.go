package object

import (
	"errors"
	"io"
	"os"
	"syscall"
	"unsafe"
)

// directAlign is the alignment O_DIRECT wants of buffers and lengths.
const directAlign = 4096

// errNoDirect means the file system refuses O_DIRECT.
var errNoDirect = errors.New("O_DIRECT refused")

// readDirect reads all size bytes of the open file fh with O_DIRECT: from
// the disk into the buffer it returns, without a copy through the page
// cache. Blocks are read once into cairn's own caches, so the page cache
// would only hold them twice, and the copy cost a reader more CPU than
// anything else cairn does with a block. It returns nil and no error
// when the buffer came out unaligned, errNoDirect when the file system
// refuses; the caller then reads as usual.
func readDirect(fh *os.File, size int64) ([]byte, error) {
	room := (size + directAlign - 1) / directAlign * directAlign
	buf := make([]byte, room) // a large allocation: page aligned
	if room == 0 || uintptr(unsafe.Pointer(unsafe.SliceData(buf)))%directAlign != 0 {
		return nil, nil
	}
	if err := setDirect(fh, true); err != nil {
		return nil, errNoDirect
	}
	n, err := fh.ReadAt(buf, 0)
	if errors.Is(err, syscall.EINVAL) {
		setDirect(fh, false) // for the caller's read through the page cache
		return nil, errNoDirect
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if int64(n) != size {
		return nil, io.ErrUnexpectedEOF // changed under us
	}
	return buf[:n], nil
}

// setDirect turns O_DIRECT on or off for fh.
func setDirect(fh *os.File, on bool) error {
	raw, err := fh.SyscallConn()
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
