package meta

import "syscall"

// Errno is a file-system errno an operation fails with: the one error
// type whose value reaches an application. The FUSE layer hands an Errno
// found in an error's chain to the kernel and turns every other error
// into EIO, so an errno that belongs to the layers below (ECONNREFUSED
// from a network error, say) can never leak out as a file-system result.
// Code that means an errno for the application returns an Errno (usually
// one of the sentinels in errors.go), never a bare syscall.Errno.
//
// An Errno matches the equal syscall.Errno both with errors.Is and with
// errors.As, so errors.Is(err, syscall.ENOENT) keeps working.
type Errno syscall.Errno

func (e Errno) Error() string { return syscall.Errno(e).Error() }

// Is reports whether target is this errno, as an Errno or a syscall.Errno.
func (e Errno) Is(target error) bool {
	switch t := target.(type) {
	case Errno:
		return e == t
	case syscall.Errno:
		return syscall.Errno(e) == t
	}
	return false
}

// As fills a *syscall.Errno with this errno.
func (e Errno) As(target any) bool {
	if p, ok := target.(*syscall.Errno); ok {
		*p = syscall.Errno(e)
		return true
	}
	return false
}
