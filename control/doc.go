// Package control is the channel through which cairn's commands that take
// a PATH inside a mount (rmr, restore, clone, compact, info, summary,
// warmup, migrate) run their work inside the process serving that mount, on every
// engine: Badger, which one process holds, included. The mount listens on a Unix
// socket whose address it publishes in its .stats file; a command connects,
// sends one request and reads progress, lines to print and a result back
// (protocol.go). The caller's uid, gid and groups come from the kernel
// (SO_PEERCRED, SO_PEERGROUPS), never from the request, and the operation
// runs as that meta.Cred through the mount's own client, so permission
// checks are those of the file system, the mount's caches stay right and
// the kernel is told to forget the names and attributes that changed.
//
// Why a socket rather than a control file in the mount's root: a socket
// gives a stream both ways (progress as it goes), a kernel-checked
// identity, and a closed connection when the command dies, which cancels
// its operation; a control file would need the FUSE layer to hold replies
// between reads and to tie a request to the process that wrote it.
//
// The package knows nothing of FUSE: the mount hands it an Invalidator.
package control
