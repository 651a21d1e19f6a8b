package chunk

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"
)

func TestStoreErrorsAreEIO(t *testing.T) {
	refused := fmt.Errorf("put x: %w", &net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)})
	err := fmt.Errorf("upload slice 1: %w", asIOError(refused))
	var errno syscall.Errno
	if !errors.As(err, &errno) || errno != syscall.EIO {
		t.Errorf("errors.As(%v) to Errno = %v, want EIO", err, errno)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Error("the cause is no longer in the chain")
	}
	if err.Error() != "upload slice 1: "+refused.Error() {
		t.Errorf("message changed: %q", err)
	}
	if got := asIOError(fmt.Errorf("x: %w", context.Canceled)); !errors.Is(got, context.Canceled) || errors.As(got, &errno) {
		t.Errorf("cancellation turned into EIO: %v", got)
	}
}
