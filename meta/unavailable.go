package meta

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"
)

// Errors that say a server went away rather than what an operation
// found. Engines wrap what only they can recognise with them (an etcd
// member without a leader, say); what the standard library reports — a
// refused or broken connection, a timeout — is recognised without them.
var (
	// ErrUnreachable: the request certainly did not reach a server that
	// could carry it out (the connection could not be made, or the
	// server refused it before running it). Any operation may be sent
	// again.
	ErrUnreachable = errors.New("server unreachable")
	// ErrUnavailable: the server went away while the request was under
	// way (a broken connection, no answer in time); it may or may not
	// have been carried out.
	ErrUnavailable = errors.New("server unavailable")
)

// Unavailable reports whether err means that the server did not answer
// (down), and if so whether the request certainly did not reach it
// (notSent). An error that carries an Errno is the operation's own
// result, never a server that went away.
func Unavailable(err error) (down, notSent bool) {
	if err == nil || errors.As(err, new(Errno)) {
		return false, false
	}
	var op *net.OpError
	network := errors.As(err, &op)
	switch {
	case errors.Is(err, ErrUnreachable), errors.Is(err, syscall.ECONNREFUSED), network && op.Op == "dial":
		return true, true
	case errors.Is(err, ErrUnavailable), network,
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE),
		errors.Is(err, syscall.ETIMEDOUT), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, context.DeadlineExceeded):
		return true, false
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true, false
	}
	return false, false
}
