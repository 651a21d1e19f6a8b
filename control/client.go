package control

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
)

// ErrUnreachable means nothing answers at a mount's published address:
// the mount's process is gone, or the socket was removed.
var ErrUnreachable = errors.New("nothing answers on the mount's control channel")

// Call sends req to the mount listening at address and waits for the
// answer, handing each progress report to progress and each line to
// line, with whether it is a warning (either may be nil). It returns the result, whose form depends on
// req.Op, or the mount's one-line error. Cancelling ctx closes the
// connection, which cancels the request in the mount.
func Call(ctx context.Context, address string, req Request, progress func(json.RawMessage), line func(text string, warning bool)) (json.RawMessage, error) {
	req.Version = Version
	var dialer net.Dialer
	conn, err := dialer.DialContext(ctx, "unix", address)
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrUnreachable, err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if err := json.NewEncoder(conn).Encode(req); err != nil {
		return nil, fmt.Errorf("send the request to the mount: %w", err)
	}
	replies := json.NewDecoder(bufio.NewReader(conn))
	for {
		var r Reply
		if err := replies.Decode(&r); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("the mount stopped answering before the end (%v): see its log", err)
		}
		switch {
		case r.Done && r.Error != "":
			return nil, errors.New(r.Error)
		case r.Done:
			return r.Result, nil
		case r.Line != "" && line != nil:
			line(r.Line, r.Warning)
		case r.Progress != nil && progress != nil:
			progress(r.Progress)
		}
	}
}
