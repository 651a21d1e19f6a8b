// Package meta defines cairn's metadata engine: the Engine interface that
// every database implements, the types it speaks in (inodes, attributes,
// directory entries, slices), the sentinel errors it returns, and the pure
// rules of POSIX semantics (permission checks, ownership inheritance, slice
// overlap) that every engine applies the same way.
//
// meta knows nothing of object storage, block layout or FUSE. Engines live in
// sub-packages by family (meta/sql, meta/kv, meta/redis); the conformance suite
// every engine must pass is meta/metatest.
package meta
