package fuse

import (
	"context"
	"errors"
	"log/slog"
	"syscall"

	gofuse "github.com/hanwen/go-fuse/v2/fuse"

	"cairn/meta"
)

// errno maps an error from the layers below to the status the kernel
// gets. It is the only place that does. A meta.Errno in the chain is the
// file system's answer and is passed on; the caller's own cancellation
// is EINTR. Anything else — a server that does not answer, a broken
// block, also a syscall.Errno such as ECONNREFUSED buried in a network
// error, which no file-system call may return — is logged with the
// operation and its cause, and becomes EIO.
func errno(op string, err error) gofuse.Status {
	if err == nil {
		return gofuse.OK
	}
	var e meta.Errno
	if errors.As(err, &e) {
		if e == meta.Errno(syscall.EIO) {
			slog.Error("I/O error", "op", op, "err", err)
		}
		return gofuse.Status(e)
	}
	if errors.Is(err, context.Canceled) {
		return gofuse.Status(syscall.EINTR)
	}
	slog.Error("I/O error", "op", op, "err", err)
	return gofuse.EIO
}

// errno maps err as the function errno does and counts a failure of op
// for the mount's metrics.
func (fs *FS) errno(op string, err error) gofuse.Status {
	st := errno(op, err)
	if st != gofuse.OK {
		fs.v.ObserveError(op, syscall.Errno(st))
	}
	return st
}
