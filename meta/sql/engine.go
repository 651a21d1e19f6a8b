// Package sql is cairn's metadata engine over SQL databases: SQLite (the
// embedded default), PostgreSQL and MySQL/MariaDB. One implementation of
// meta.Engine runs on all three through database/sql; a small dialect
// describes what each database forces (placeholders, column types, upsert
// syntax, row locks, which errors mean "run the transaction again").
//
// How operations stay atomic: each is one transaction at READ COMMITTED
// that first locks the inode rows it will change (SELECT ... FOR UPDATE, in
// inode order where it locks several) and reads everything else after the
// lock, in statements of their own. Usage counters are updated last.
// Renames between directories also take one volume-wide row lock, as
// Linux's rename mutex does, so that loop checks walk a stable tree.
// Deadlocks and serialization failures re-run the whole closure. SQLite
// needs none of the row locks: BEGIN IMMEDIATE admits one writer.
//
// Round trips: reads are one statement. On PostgreSQL and MySQL/MariaDB,
// Write, Mknod, Unlink, Rmdir and Rename are one call each of a routine
// Init installs (PL/pgSQL functions, stored procedures: routines/), with
// the permission rules of meta/perm.go ported into them and checked under
// the row locks; the server runs each call as one transaction. Other
// mutations are transactions whose writes are queued and sent together
// with COMMIT; on MySQL/MariaDB, BEGIN and any queued writes also go with
// the next statement, and a locking read and the reads that must follow it
// go together as one multi-statement string (readSeq).
//
// The package knows nothing of object storage, chunk layout beyond slice
// records, or FUSE.
package sql

import (
	dbsql "database/sql"
	"sync"
	"sync/atomic"

	"cairn/meta"
)

var _ meta.Engine = (*Engine)(nil)

// Engine is a meta.Engine over one SQL database. It is safe for concurrent
// use; several Engines (in one process or many) may share a database.
type Engine struct {
	db *dbsql.DB
	d  *dialect

	// writeMu serialises this process's write transactions on databases
	// that allow one writer at a time (SQLite): waiting on a Go mutex is
	// cheaper and fairer than SQLite's busy handler.
	writeMu *sync.Mutex
	// group, with writeMu, lets concurrent write transactions share a
	// commit (groupcommit.go).
	group *groupCommit

	// limits are the volume's capacity and inode limits, read by Init and
	// Load; zero is unlimited.
	limits atomic.Pointer[meta.Format]

	roundTrips atomic.Uint64
	retries    atomic.Uint64
	// dirStatsTable is set once cairn_dirstat is known to exist
	// (dirstats.go): volumes formatted before it have none.
	dirStatsTable atomic.Bool
	// connected is set once the database has answered, after which a lost
	// connection is worth waiting for (a restarting server) instead of
	// failing at once (a wrong address).
	connected atomic.Bool

	// source is the URL the engine was opened with.
	source string
	// file is the SQLite database file, created by Init.
	file string

	rebound sync.Map // query with '?' placeholders -> the dialect's form

	// addUsageQuery changes the usage row of the connection (usage.go).
	addUsageQuery string

	// ownLocks holds this engine's copy of each lock owner's byte-range
	// locks (ownedRanges -> encoded ranges), the guess setLkRoutine
	// computes from and cairn_setlk checks.
	ownLocks sync.Map
}

func newEngine(db *dbsql.DB, d *dialect) *Engine {
	e := &Engine{db: db, d: d,
		addUsageQuery: "UPDATE cairn_usage SET space = space + ?, inodes = inodes + ? WHERE id = " + d.usageShard}
	if d.singleWriter {
		e.writeMu = &sync.Mutex{}
		e.group = &groupCommit{}
	}
	return e
}

// Name is the engine's URL scheme.
func (e *Engine) Name() string { return e.d.name }

// Stats reports statements sent to the database and transactions re-run.
func (e *Engine) Stats() meta.Stats {
	return meta.Stats{RoundTrips: e.roundTrips.Load(), Retries: e.retries.Load()}
}

// Close releases the connection pool.
func (e *Engine) Close() error { return e.db.Close() }
