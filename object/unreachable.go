package object

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"
)

// ErrUnavailable marks an error of a store that answered that it cannot
// serve now (S3's 503 Slow Down / Service Unavailable): worth waiting for,
// like a store that does not answer at all.
var ErrUnavailable = errors.New("store temporarily unavailable")

// unreachable reports whether err says the store could not be reached or
// did not answer in time — a refused, reset or broken connection, a
// network timeout, an attempt cut by its own timeout — or answered that it
// is unavailable for now. Those are what WithRetryFor waits out for its
// whole budget. An error the store answered with (a 500, a corrupt
// object) is not: trying it again a few times is all that can help.
func unreachable(err error) bool {
	if errors.Is(err, ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne)
}
