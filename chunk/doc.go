// Package chunk stores the data of slices as blocks in an object store: it
// cuts a slice into blocks of the volume's block size, compresses them,
// uploads them in the background with bounded memory, and reads them back
// through a local disk cache with readahead.
//
// chunk knows nothing of metadata: a slice is an id and a length; which
// slices make up which file is the metadata engine's business, and vfs
// brings the two together.
package chunk
