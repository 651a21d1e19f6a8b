package meta

import (
	"errors"
	"syscall"
)

// Errors an Engine returns. The POSIX ones are Errno values, the errno
// the FUSE layer hands to the kernel, so that every engine fails the same
// way; wrap them with context freely, callers test with errors.Is.
var (
	ErrNotFound     error = Errno(syscall.ENOENT)
	ErrExists       error = Errno(syscall.EEXIST)
	ErrNotDir       error = Errno(syscall.ENOTDIR)
	ErrIsDir        error = Errno(syscall.EISDIR)
	ErrNotEmpty     error = Errno(syscall.ENOTEMPTY)
	ErrAccess       error = Errno(syscall.EACCES) // permission bits deny it
	ErrNotPermitted error = Errno(syscall.EPERM)  // ownership or sticky bit denies it
	ErrInvalid      error = Errno(syscall.EINVAL)
	ErrNameTooLong  error = Errno(syscall.ENAMETOOLONG)
	ErrNoAttr       error = Errno(syscall.ENODATA) // missing xattr
	ErrRange        error = Errno(syscall.ERANGE)
	ErrNoSpace      error = Errno(syscall.ENOSPC)
	ErrTooBig       error = Errno(syscall.EFBIG)
	ErrTooManyLinks error = Errno(syscall.EMLINK)
	ErrReadOnly     error = Errno(syscall.EROFS)
	ErrNotSupported error = Errno(syscall.ENOTSUP)
	ErrAgain        error = Errno(syscall.EAGAIN) // a lock is held by someone else
	ErrBusy         error = Errno(syscall.EBUSY)
	ErrIO           error = Errno(syscall.EIO)
	ErrValueTooBig  error = Errno(syscall.E2BIG)  // an xattr value over MaxXattrValue
	ErrNoDevice     error = Errno(syscall.ENODEV) // fallocate of a non-regular file
	ErrBadHandle    error = Errno(syscall.EBADF)  // a handle not open, or not open for this
	ErrStale        error = Errno(syscall.ESTALE) // an open file deleted by another client
	ErrInterrupted  error = Errno(syscall.EINTR)  // the caller gave up waiting

	// ErrNotFormatted means the database holds no cairn volume.
	ErrNotFormatted = errors.New("no cairn volume here (run 'cairn format' first)")
	// ErrFormatted means Init found a volume and was not told to replace it.
	ErrFormatted = errors.New("a cairn volume is already formatted here (change its settings with 'cairn config', or remove it with 'cairn destroy')")
	// ErrConflict is a transaction that lost a race and may be re-run from
	// its reads. Engines retry it themselves; it reaches callers only when
	// the retry budget is spent.
	ErrConflict = errors.New("transaction conflict")
)
