// Package chunk stores the data of slices as blocks in an object store: it
// cuts a slice into blocks of the volume's block size, compresses them,
// uploads them in the background with bounded memory, and reads them back
// through a local disk cache with readahead.
//
// chunk knows nothing of metadata: a slice is an id and a length; which
// slices make up which file is the metadata engine's business, and vfs
// brings the two together.
//
// Errors: a read of a block whose bytes fail their checksum matches
// ErrCorrupt, one of a block the store does not have matches
// ErrBlockMissing; both also match syscall.EIO, which is what an
// application should see. Other read errors come from the object store
// (after its retries) and are I/O errors as well.
//
// Durability: when Writer.Finish returns nil, every block of the slice is
// in the object store — or, with Config.Writeback, fsync'd in the staging
// directory under CacheDir, from which it is uploaded in the background and
// after a restart.
//
// On-disk layout under CacheDir: cache/ holds cached blocks (evicted
// least-recently-used beyond CacheSize), staging/ the writeback blocks not
// yet uploaded. Give each volume a CacheDir of its own.
package chunk
