package chunk

import (
	"context"
	"errors"
	"syscall"
)

// storeIOError marks a failure to reach the object store (a refused
// connection, a timeout, a server error) as an I/O error for the file
// system above: errors.As to a syscall.Errno finds EIO first, not the
// network's own errno (ECONNREFUSED, ETIMEDOUT), which no application
// expects from read, write or fsync. The message and the chain stay.
type storeIOError struct{ err error }

func (e *storeIOError) Error() string { return e.err.Error() }
func (e *storeIOError) Unwrap() error { return e.err }

func (e *storeIOError) As(target any) bool {
	if p, ok := target.(*syscall.Errno); ok {
		*p = syscall.EIO
		return true
	}
	return false
}

// asIOError wraps err as a storeIOError, unless it is the caller's own
// cancellation.
func asIOError(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &storeIOError{err}
}
