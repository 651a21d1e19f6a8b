// Package vfs is the file system a mount serves: open handles, per-file
// write buffers over chunk writers, reads that resolve slices, flush on close
// and fsync, compaction and the removal of dead slices' blocks. It is the
// one place where metadata (meta) and data (chunk) meet; it knows nothing of
// FUSE, whose layer above hands it requests and maps its errors to errnos.
//
// # Consistency
//
// Writes go to a bounded memory buffer and are uploaded in whole blocks in
// the background. A slice is committed to metadata only after its blocks
// are stored. Flush (every close) and fsync commit everything written
// through the file so far and return only when it is durable. Open reads
// attributes and slice lists afresh, so a client sees what another one
// wrote before closing (close-to-open consistency).
//
// # Statistics
//
// The root directory holds a hidden read-only file named ".stats" (not
// listed by readdir, inode StatsIno). Opening it takes a snapshot; reading
// it returns that snapshot as one JSON object:
//
//	{
//	  "meta_url": the volume's metadata URL, password masked,
//	  "control":  the address of the mount's control channel (package control),
//	  "ops":    {"fuse.lookup": {"count":..,"mean_us":..,"p50_us":..,"p99_us":..,"max_us":..}, ...,
//	             "meta.create": {...}, ...},
//	  "engine": {"RoundTrips": n, "Retries": n},
//	  "blocks": <chunk.Stats as JSON: puts, gets, their nanoseconds, cache hits and misses, bytes>,
//	  "usage":  {"Space": bytes, "Inodes": n},
//	  "buffered_bytes": n,
//	  "read_bytes": n, "written_bytes": n
//	}
//
// Keys under "ops" starting with "fuse." are FUSE requests as the kernel
// sent them, measured from arrival to reply; "meta." keys are calls to the
// metadata engine, each one transaction. `cairn bench` reads this file
// before and after a run and reports the difference. The same counters,
// and the FUSE requests that failed (ObserveError), are what a mount's
// Prometheus endpoint exports (package metrics).
package vfs
