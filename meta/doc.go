// Package meta defines cairn's metadata engine: the Engine interface that
// every database implements, the types it speaks in (inodes, attributes,
// directory entries, slices), the sentinel errors it returns, and the pure
// rules of POSIX semantics (permission checks, ownership inheritance, slice
// overlap, byte-range lock splitting and merging, the compaction prefix
// check) that every engine applies the same way, with the record layouts
// that more than one family stores (slices, attributes). Where a database
// runs a rule itself (Lua on Redis, routines on PostgreSQL and MySQL), its
// port is held to the Go function case by case by a test through the real
// server.
//
// meta knows nothing of object storage, block layout or FUSE. Engines live in
// sub-packages by family (meta/sql, meta/kv, meta/redis); the conformance suite
// every engine must pass is meta/metatest.
package meta
