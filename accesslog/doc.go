// Package accesslog is a mount's access log: one line per FUSE request,
// with who asked, what, the result and how long it took. A Stream hands
// the lines to whoever reads the mount's .accesslog file at the moment,
// and to nobody otherwise; Parse reads a line back and Summary sums lines
// up by operation and by inode for 'cairn profile'.
//
// The package knows nothing of FUSE or of the file system: the fuse layer
// formats its requests into Records.
package accesslog
