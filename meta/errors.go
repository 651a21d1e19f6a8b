package meta

import (
	"errors"
	"syscall"
)

// Errors an Engine returns. The POSIX ones are the errno the FUSE layer
// hands to the kernel, so that every engine fails the same way; wrap them
// with context freely, callers test with errors.Is.
var (
	ErrNotFound     error = syscall.ENOENT
	ErrExists       error = syscall.EEXIST
	ErrNotDir       error = syscall.ENOTDIR
	ErrIsDir        error = syscall.EISDIR
	ErrNotEmpty     error = syscall.ENOTEMPTY
	ErrAccess       error = syscall.EACCES // permission bits deny it
	ErrNotPermitted error = syscall.EPERM  // ownership or sticky bit denies it
	ErrInvalid      error = syscall.EINVAL
	ErrNameTooLong  error = syscall.ENAMETOOLONG
	ErrNoAttr       error = syscall.ENODATA // missing xattr
	ErrRange        error = syscall.ERANGE
	ErrNoSpace      error = syscall.ENOSPC
	ErrTooBig       error = syscall.EFBIG
	ErrValueTooBig  error = syscall.E2BIG // an xattr value over MaxXattrValue
	ErrTooManyLinks error = syscall.EMLINK
	ErrReadOnly     error = syscall.EROFS
	ErrNotSupported error = syscall.ENOTSUP
	ErrAgain        error = syscall.EAGAIN // a lock is held by someone else
	ErrBusy         error = syscall.EBUSY
	ErrIO           error = syscall.EIO

	// ErrNotFormatted means the database holds no cairn volume.
	ErrNotFormatted = errors.New("no cairn volume here (run 'cairn format' first)")
	// ErrFormatted means Init found a volume and was not told to replace it.
	ErrFormatted = errors.New("a cairn volume is already formatted here (use --force to replace it)")
	// ErrConflict is a transaction that lost a race and may be re-run from
	// its reads. Engines retry it themselves; it reaches callers only when
	// the retry budget is spent.
	ErrConflict = errors.New("transaction conflict")
)
