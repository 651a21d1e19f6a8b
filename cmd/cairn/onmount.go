package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"cairn/control"
	"cairn/inspect"
)

// callMount runs req in the process serving t's mount, through its
// control channel (t.Control), as the user running the command: every
// command given a PATH in a mount goes this way. req.Path, when empty, is
// t's path in the mount. progress and line receive what the mount
// reports as it goes (either may be nil). A command stopped (Ctrl-C)
// closes the connection, which stops the work in the mount.
func callMount(t inspect.Target, req control.Request, progress func(json.RawMessage), line func(text string, warning bool)) (json.RawMessage, error) {
	if req.Path == "" {
		p, err := t.InMount()
		if err != nil {
			return nil, err
		}
		req.Path = p
	}
	result, err := control.Call(context.Background(), t.Control, req, progress, line)
	if errors.Is(err, control.ErrUnreachable) {
		return nil, fmt.Errorf("the cairn mount at %s does not answer on its control channel %s: its process is gone? ('cairn umount %s', then mount it again)", t.MountPoint, t.Control, t.MountPoint)
	}
	return result, err
}

// countInto is a progress handler that keeps the inodes done in n; given
// the final result (a control.Count too), it keeps the total.
func countInto(n *atomic.Int64) func(json.RawMessage) {
	return func(raw json.RawMessage) {
		var c control.Count
		if json.Unmarshal(raw, &c) == nil {
			n.Store(c.Inodes)
		}
	}
}

// openBeside checks that a command may open the engine of t's mount next
// to the mount, which it does only for a mount of a release without a
// control channel: a Badger volume opens in one process only.
func openBeside(t inspect.Target, command string) error {
	if strings.HasPrefix(t.MetaURL, "badger://") {
		return fmt.Errorf("the mount at %s runs an older cairn without a control channel, and its Badger volume opens in one process only: remount it with this release to run 'cairn %s' on it", t.MountPoint, command)
	}
	return nil
}
