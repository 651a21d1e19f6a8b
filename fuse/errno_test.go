package fuse

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"

	gofuse "github.com/hanwen/go-fuse/v2/fuse"

	"cairn/meta"
)

// errno passes on only meta's errnos: a network error's errno, wrapped as
// the engines and stores wrap it, is EIO.
func TestErrnoBoundary(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	cases := []struct {
		name string
		err  error
		want gofuse.Status
	}{
		{"nil", nil, gofuse.OK},
		{"meta sentinel", meta.ErrNotFound, gofuse.ENOENT},
		{"wrapped meta sentinel", fmt.Errorf("lookup x: %w", meta.ErrExists), gofuse.Status(syscall.EEXIST)},
		{"meta errno value", meta.Errno(syscall.E2BIG), gofuse.Status(syscall.E2BIG)},
		{"meta EIO", fmt.Errorf("commit: %w", meta.ErrIO), gofuse.EIO},
		{"refused connection", fmt.Errorf("redis lookup on 127.0.0.1:6379: %w", refused), gofuse.EIO},
		{"bare network errno", syscall.ECONNREFUSED, gofuse.EIO},
		{"bare syscall errno", fmt.Errorf("x: %w", syscall.ENOENT), gofuse.EIO},
		{"timeout", context.DeadlineExceeded, gofuse.EIO},
		{"cancelled", fmt.Errorf("read: %w", context.Canceled), gofuse.Status(syscall.EINTR)},
		{"plain error", errors.New("something broke"), gofuse.EIO},
	}
	for _, c := range cases {
		if got := errno("test", c.err); got != c.want {
			t.Errorf("%s: errno(%v) = %v, want %v", c.name, c.err, got, c.want)
		}
	}
}

// meta.Errno still matches the syscall.Errno of the same number, which
// callers below the boundary test with errors.Is and errors.As.
func TestMetaErrnoMatchesSyscallErrno(t *testing.T) {
	err := fmt.Errorf("mkdir: %w", meta.ErrExists)
	if !errors.Is(err, syscall.EEXIST) || errors.Is(err, syscall.ENOENT) {
		t.Errorf("errors.Is with syscall.Errno: EEXIST %v, ENOENT %v", errors.Is(err, syscall.EEXIST), errors.Is(err, syscall.ENOENT))
	}
	var e syscall.Errno
	if !errors.As(err, &e) || e != syscall.EEXIST {
		t.Errorf("errors.As to syscall.Errno gives %v", e)
	}
	if errors.Is(syscall.ECONNREFUSED, meta.ErrIO) {
		t.Error("a network errno matches meta.ErrIO")
	}
}
