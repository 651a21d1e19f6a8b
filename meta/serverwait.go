package meta

import (
	"context"
	"fmt"
	"time"
)

// DefaultIOTimeout is how long an operation waits for a server that went
// away before it fails with EIO, unless the mount says otherwise.
const DefaultIOTimeout = time.Minute

// Pauses between attempts while a server is away.
const (
	firstServerPause = 50 * time.Millisecond
	maxServerPause   = time.Second
)

// retrySafety says whether an operation may be sent again after a
// request of it may have reached the server.
type retrySafety int

const (
	// once: a mutation that must not run twice (a second Mknod would find
	// the first one's entry). Sent again only when the request certainly
	// did not reach the server.
	once retrySafety = iota
	// repeatable: a read, or a mutation that sets an absolute state
	// (attributes, a lock of the same owner, a heartbeat) or hands out
	// numbers (a repeat wastes a batch, never gives one out twice).
	repeatable
)

// WithServerWait wraps e so that an operation rides out a server that
// goes away (a refused or broken connection, a timeout, a restart): it
// waits and tries again, with growing pauses, until timeout has passed
// since it started, and then fails with ErrIO. It is the one bound on how
// long an application waits for the metadata server.
//
// The contract: every call gets a deadline timeout away (the engines'
// own reconnect loops end there too). A read, and a mutation that may
// be repeated (see retrySafety), is sent again after any error that
// Unavailable reports as down. Any other mutation is sent again only when
// the request certainly did not reach the server (notSent); when it may
// have, it fails with ErrIO at once rather than risk applying twice —
// unless the engine settled the outcome itself (meta/sql finds out
// whether a create or a write took effect after a broken connection), in
// which case the error is the operation's own. Errors that carry an Errno
// are results and are returned unchanged; so is the caller's own
// cancellation.
func WithServerWait(e Engine, timeout time.Duration) Engine {
	if timeout <= 0 {
		timeout = DefaultIOTimeout
	}
	return &serverWait{Engine: e, timeout: timeout}
}

type serverWait struct {
	Engine
	timeout time.Duration
}

var _ Engine = (*serverWait)(nil)

// Unwrap returns the engine that is waited for.
func (w *serverWait) Unwrap() Engine { return w.Engine }

func (w *serverWait) do(ctx context.Context, op string, safety retrySafety, f func(ctx context.Context) error) error {
	deadline := time.Now().Add(w.timeout)
	actx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	pause := firstServerPause
	for {
		err := f(actx)
		if err == nil || ctx.Err() != nil {
			return err
		}
		down, notSent := Unavailable(err)
		spent := actx.Err() != nil || time.Until(deadline) <= 0
		switch {
		case !down:
			return err
		case spent:
			return fmt.Errorf("%s: %w: the metadata server did not answer within %v: %v", op, ErrIO, w.timeout, err)
		case !notSent && safety == once:
			return fmt.Errorf("%s: %w: the connection to the metadata server broke, the operation may or may not have happened: %v", op, ErrIO, err)
		}
		select {
		case <-actx.Done():
			return fmt.Errorf("%s: %w: the metadata server did not answer within %v: %v", op, ErrIO, w.timeout, err)
		case <-time.After(min(pause, time.Until(deadline))):
		}
		pause = min(2*pause, maxServerPause)
	}
}
