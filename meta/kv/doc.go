// Package kv is cairn's metadata engine over transactional key-value stores.
// The file-system semantics of meta.Engine are written once, in Engine, over
// the small Store/Tx seam (get, batch get, scan a range, put, delete,
// commit); each store is a thin adapter that only reads, writes and commits
// ordered keys:
//
//   - MemStore (mem://): an in-memory map with optimistic, serializable
//     transactions, for tests.
//   - BadgerStore (badger:///dir): embedded BadgerDB, one process at a time
//     (a lock file names the holder), fsync on commit unless ?sync=false.
//   - EtcdStore (etcd://h1:2379,h2:2379/prefix): compare-and-swap on the mod
//     revisions of the keys read, committed speculatively from the client's
//     last-seen values, so that most operations are one request.
//   - TiKVStore (tikv://pd1:2379/prefix): client-go v2 optimistic
//     transactions with the read keys locked at commit. No TiKV server can
//     be installed where cairn is developed: its tests run against
//     client-go's in-process test cluster (mocktikv and a mock PD).
//
// Every store's transactions retry as a whole on conflict (Engine.txn):
// reads are redone, writes computed from stale reads are never replayed.
// The key layout is in keys.go.
//
// kv knows nothing of object storage, FUSE or the client caches above the
// engine.
package kv
