package meta_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"cairn/meta"
)

func TestUnavailable(t *testing.T) {
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	reset := &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	cases := []struct {
		name          string
		err           error
		down, notSent bool
	}{
		{"nil", nil, false, false},
		{"an operation's result", fmt.Errorf("mkdir x: %w", meta.ErrExists), false, false},
		{"an engine's EIO with a network cause", fmt.Errorf("%w: the connection broke: %v", meta.ErrIO, reset), false, false},
		{"an errno and its network cause", fmt.Errorf("%w: the connection broke: %w", meta.ErrIO, reset), false, false},
		{"plain error", errors.New("syntax error"), false, false},
		{"conflict", meta.ErrConflict, false, false},
		{"refused dial", fmt.Errorf("redis getattr: %w", dial), true, true},
		{"bare ECONNREFUSED", syscall.ECONNREFUSED, true, true},
		{"engine says unreachable", fmt.Errorf("etcd: no leader (%w)", meta.ErrUnreachable), true, true},
		{"reset connection", fmt.Errorf("redis mknod: %w", reset), true, false},
		{"closed connection", fmt.Errorf("redis mknod: %w", io.EOF), true, false},
		{"broken pipe", syscall.EPIPE, true, false},
		{"engine says unavailable", fmt.Errorf("etcd: timed out (%w)", meta.ErrUnavailable), true, false},
		{"no answer in time", fmt.Errorf("query: %w", context.DeadlineExceeded), true, false},
	}
	for _, c := range cases {
		down, notSent := meta.Unavailable(c.err)
		if down != c.down || notSent != c.notSent {
			t.Errorf("%s: Unavailable(%v) = down %v, not sent %v; want %v, %v", c.name, c.err, down, notSent, c.down, c.notSent)
		}
	}
}
