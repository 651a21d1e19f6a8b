package fuse

import (
	"context"
	"errors"
	"log/slog"
	"syscall"

	gofuse "github.com/hanwen/go-fuse/v2/fuse"
)

// errno maps an error from the layers below to the status the kernel
// gets. It is the only place that does: a syscall.Errno anywhere in the
// chain is passed on, anything else is logged and becomes EIO.
func errno(op string, err error) gofuse.Status {
	if err == nil {
		return gofuse.OK
	}
	var e syscall.Errno
	if errors.As(err, &e) {
		return gofuse.Status(e)
	}
	if errors.Is(err, context.Canceled) {
		return gofuse.Status(syscall.EINTR)
	}
	slog.Error("I/O error", "op", op, "err", err)
	return gofuse.EIO
}
