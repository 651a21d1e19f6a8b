package main

import (
	"log/slog"

	gofuse "github.com/hanwen/go-fuse/v2/fuse"

	"cairn/control"
	"cairn/fuse"
	"cairn/vfs"
)

// mountControl is a mount's control channel (package control), through
// which commands given a PATH in the mount run their work in it.
type mountControl struct{ server *control.Server }

// listenControl opens the channel of the mount serving v and publishes
// its address in .stats; shared: every user may use the mount. Without a
// channel the mount still serves, and commands fall back to opening the
// engine themselves (which a Badger volume refuses while mounted).
func listenControl(v *vfs.VFS, shared bool) *mountControl {
	s, err := control.Listen(control.Dir(), v, shared)
	if err != nil {
		slog.Warn("mounting without a control channel: commands given a PATH in this mount will open the metadata engine themselves", "err", err)
		return &mountControl{}
	}
	v.SetControlAddress(s.Address())
	return &mountControl{server: s}
}

// serve answers commands once the kernel has the mount.
func (m *mountControl) serve(srv *gofuse.Server, v *vfs.VFS) {
	if m.server != nil {
		go m.server.Serve(fuse.NewNotifier(srv, v))
	}
}

// close stops the channel, cancelling the commands' work in progress.
func (m *mountControl) close() {
	if m.server != nil {
		_ = m.server.Close()
	}
}
