// Package volume opens a cairn volume the one way the CLI, the benchmarks
// and the tests all do: the metadata engine named by a URL, the volume's
// settings stored in it, the object store and block store of its data, a
// metadata client with a session, and the VFS over them. Volume.Close
// tears them down in the reverse order, so that buffered writes reach the
// object store before the session and the engine go.
//
// volume sits above meta, object, chunk and vfs and below cmd/cairn and
// bench. It knows nothing of FUSE: package fuse serves the VFS it opens.
//
// Errors are one line that says what failed and what to do, as the CLI
// prints them; where an option is at fault they name the flag of
// 'cairn mount' that sets it.
package volume
