// Package kv is cairn's metadata engine over transactional key-value stores
// (an in-memory map, BadgerDB, etcd, TiKV). The file-system semantics of
// meta.Engine are written once, in Engine, over the small Store/Tx seam;
// each store is a thin adapter that only knows how to read, write and commit
// ordered keys.
//
// kv knows nothing of object storage, FUSE or the client caches above the
// engine.
package kv
