package object_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"cairn/object"
)

// flaky fails the first failures Puts with err.
type flaky struct {
	object.Store
	failures int
	err      error
	calls    int
}

func (f *flaky) Put(ctx context.Context, key string, data []byte) error {
	f.calls++
	if f.calls <= f.failures {
		return f.err
	}
	return f.Store.Put(ctx, key, data)
}

func TestRetry(t *testing.T) {
	transient := errors.New("connection reset")
	for _, c := range []struct {
		name      string
		failures  int
		err       error
		retries   int
		wantCalls int
		wantErr   string
	}{
		{"recovers", 2, transient, 3, 3, ""},
		{"budget spent", 10, transient, 2, 3, "failed 3 times, giving up: connection reset"},
		{"permanent at once", 10, fmt.Errorf("denied: %w", object.ErrPermanent), 5, 1, "denied"},
		{"not-exist at once", 10, fmt.Errorf("k: %w", object.ErrNotExist), 5, 1, "does not exist"},
		{"no retries", 10, transient, -1, 1, "failed 1 times"},
	} {
		f := &flaky{Store: object.NewMem("m"), failures: c.failures, err: c.err}
		err := object.WithRetry(f, c.retries, 0).Put(context.Background(), "k", []byte("v"))
		if f.calls != c.wantCalls {
			t.Errorf("%s: %d calls, want %d", c.name, f.calls, c.wantCalls)
		}
		if c.wantErr == "" && err != nil || c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)) {
			t.Errorf("%s: err %v, want %q", c.name, err, c.wantErr)
		}
		if err != nil && !errors.Is(err, c.err) {
			t.Errorf("%s: %v does not wrap the store's error", c.name, err)
		}
	}
}

func TestRetryStopsWhenCallerCancels(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f := &flaky{Store: object.NewMem("m"), failures: 10, err: errors.New("down")}
	if err := object.WithRetry(f, 5, 0).Put(ctx, "k", nil); err == nil || f.calls != 1 {
		t.Errorf("cancelled caller: err %v after %d calls, want an error after 1", err, f.calls)
	}
}

// TestRetryForWaitsOnlyForAnUnreachableStore: under a time budget, a store
// that cannot be reached is tried again until the budget is spent, while
// a store that answers with an error (MinIO refusing a corrupt object,
// say) gets the counted retries only, and is not waited on for the whole
// budget.
func TestRetryForWaitsOnlyForAnUnreachableStore(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	for _, c := range []struct {
		name        string
		err         error
		wantAtLeast int
		wantAtMost  int
	}{
		{"connection refused", refused, object.DefaultRetries + 2, 1 << 20},
		{"unavailable", fmt.Errorf("get k: slow down: %w", object.ErrUnavailable), object.DefaultRetries + 2, 1 << 20},
		{"server error", errors.New("get k: the object is corrupt (HTTP 500)"), object.DefaultRetries + 1, object.DefaultRetries + 1},
	} {
		f := &flaky{Store: object.NewMem("m"), failures: 1 << 20, err: c.err}
		err := object.WithRetryFor(f, 4*time.Second, 0).Put(context.Background(), "k", []byte("v"))
		if !errors.Is(err, c.err) {
			t.Errorf("%s: err %v does not wrap the store's error", c.name, err)
		}
		if f.calls < c.wantAtLeast || f.calls > c.wantAtMost {
			t.Errorf("%s: %d calls, want %d to %d", c.name, f.calls, c.wantAtLeast, c.wantAtMost)
		}
	}
}
