package object

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// ErrPermanent marks errors that trying again cannot cure (bad credentials,
// a bucket the store refuses); the retry wrapper returns them at once.
var ErrPermanent = errors.New("permanent store error")

// Retry defaults for remote stores.
const (
	DefaultRetries = 5
	DefaultTimeout = 30 * time.Second
	firstBackoff   = 100 * time.Millisecond
	maxBackoff     = 5 * time.Second
)

// retrying wraps a store: every call gets a timeout, and a call that fails
// with anything but ErrNotExist, ErrPermanent or the caller's own
// cancellation is tried again after a growing, jittered pause, up to a
// budget.
type retrying struct {
	Store
	retries int
	timeout time.Duration
	budget  time.Duration // > 0: retry until this much time has passed, whatever retries says
}

// WithRetry wraps s with timeouts and retries (retries < 0: none; 0 and
// timeout 0 take the defaults).
func WithRetry(s Store, retries int, timeout time.Duration) Store {
	if retries == 0 {
		retries = DefaultRetries
	}
	if retries < 0 {
		retries = 0
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &retrying{Store: s, retries: retries, timeout: timeout}
}

// WithRetryFor wraps s like WithRetry, but a call that fails because the
// store cannot be reached (see unreachable) is tried again until budget
// has passed since its first attempt (however many attempts that is), and
// no attempt runs past that: a store that went away is waited for that
// long, then the call fails. Any other failure — the store answered with
// an error — is tried again DefaultRetries times, as with WithRetry.
func WithRetryFor(s Store, budget, timeout time.Duration) Store {
	r := WithRetry(s, 0, timeout).(*retrying)
	r.budget = budget
	return r
}

func (r *retrying) do(ctx context.Context, what string, f func(ctx context.Context) error) error {
	backoff := firstBackoff
	var deadline time.Time
	if r.budget > 0 {
		deadline = time.Now().Add(r.budget)
	}
	var err error
	attempt := 0
	for ; ; attempt++ {
		timeout := r.timeout
		if !deadline.IsZero() {
			timeout = min(timeout, time.Until(deadline))
		}
		actx, cancel := context.WithTimeout(ctx, timeout)
		err = f(actx)
		cancel()
		if err == nil || errors.Is(err, ErrNotExist) || errors.Is(err, ErrPermanent) {
			return err
		}
		if ctx.Err() != nil {
			return err
		}
		pause := backoff/2 + rand.N(backoff/2+1)
		if !deadline.IsZero() && unreachable(err) {
			if pause = min(pause, time.Until(deadline)); pause <= 0 {
				break
			}
		} else if attempt >= r.retries {
			break
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(pause):
		}
		if backoff *= 2; backoff > maxBackoff {
			backoff = maxBackoff
		}
	}
	return fmt.Errorf("%s on %s failed %d times, giving up: %w", what, r.Store, attempt+1, err)
}

func (r *retrying) Create(ctx context.Context) error {
	return r.do(ctx, "create", func(ctx context.Context) error { return r.Store.Create(ctx) })
}

func (r *retrying) Put(ctx context.Context, key string, data []byte) error {
	return r.do(ctx, "put "+key, func(ctx context.Context) error { return r.Store.Put(ctx, key, data) })
}

func (r *retrying) Get(ctx context.Context, key string, off, limit int64) (b []byte, err error) {
	err = r.do(ctx, "get "+key, func(ctx context.Context) error {
		b, err = r.Store.Get(ctx, key, off, limit)
		return err
	})
	return b, err
}

func (r *retrying) GetInto(ctx context.Context, key string, buf []byte) (b []byte, err error) {
	err = r.do(ctx, "get "+key, func(ctx context.Context) error {
		b, err = GetInto(ctx, r.Store, key, buf)
		return err
	})
	return b, err
}

func (r *retrying) Head(ctx context.Context, key string) (i Info, err error) {
	err = r.do(ctx, "head "+key, func(ctx context.Context) error {
		i, err = r.Store.Head(ctx, key)
		return err
	})
	return i, err
}

func (r *retrying) Delete(ctx context.Context, key string) error {
	return r.do(ctx, "delete "+key, func(ctx context.Context) error { return r.Store.Delete(ctx, key) })
}

func (r *retrying) List(ctx context.Context, prefix, after string, limit int) (l []Info, err error) {
	err = r.do(ctx, "list "+prefix, func(ctx context.Context) error {
		l, err = r.Store.List(ctx, prefix, after, limit)
		return err
	})
	return l, err
}
