// Package fuse serves a vfs.VFS to the kernel through FUSE (go-fuse's raw
// protocol API, so that inode numbers are cairn's own and every errno is
// chosen here). It translates requests and attributes and maps errors to
// errnos in exactly one place (errno in errno.go); it knows nothing of
// metadata engines or object stores. A wrapper around the FS (loggedFS)
// serves the hidden .accesslog file and logs requests to its readers.
package fuse
