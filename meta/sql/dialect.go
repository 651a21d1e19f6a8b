package sql

import (
	"strconv"
	"strings"
)

// dialect is what one database forces on the shared engine code. Queries
// are written once, with '?' placeholders and the type names of the schema
// template; the dialect rewrites them.
type dialect struct {
	name string
	// dollar numbers placeholders $1, $2... (PostgreSQL).
	dollar bool
	// forUpdate locks the rows a SELECT reads until commit; empty on
	// databases where a write transaction excludes all others (SQLite).
	forUpdate string
	// singleWriter: one write transaction at a time per database.
	singleWriter bool
	// usageShard is an expression for the row of cairn_usage a
	// transaction changes (1 to usageShards): one per connection, so that
	// transactions at once do not queue on one row's lock until commit.
	// The routines use the same expression.
	usageShard string
	// returning: UPDATE ... RETURNING, and INSERT ... ON CONFLICT ... DO
	// UPDATE ... RETURNING, are supported.
	returning bool
	// types maps the schema template's type names to the database's.
	types map[string]string
	// inlineIndex declares secondary indexes inside CREATE TABLE (MySQL
	// has no CREATE INDEX IF NOT EXISTS).
	inlineIndex bool
	// tableOptions is appended to every CREATE TABLE.
	tableOptions string
	// mysqlUpsert: INSERT ... ON DUPLICATE KEY UPDATE instead of
	// INSERT ... ON CONFLICT.
	mysqlUpsert bool
	// retryable reports an error after which the whole transaction may
	// run again: a serialization failure, a deadlock, a busy database.
	retryable func(error) bool
	// connectionLost reports an error that means the server went away.
	connectionLost func(error) bool
	// checkServer refuses a server too old for the schema (nil: any).
	checkServer func(c *conn) error
	// explain turns a connection or login failure into a line a user can
	// act on (nil: errors as they are).
	explain func(err error) error
	// batch makes transactions queue their writes and send them with
	// COMMIT as one multi-statement string, with arguments interpolated
	// client-side by the driver; batchArg, when set, is passed as the first
	// argument of that Exec (pgx: the simple protocol).
	batch    bool
	batchArg any
	// batchReads also sends BEGIN and the queued writes ahead of the next
	// read or counted write, in the same multi-statement string (MySQL:
	// the driver skips the result sets that have no columns).
	batchReads bool
	// functions are the server-side routines Init installs; with them
	// (routines), every mutation a client makes in normal use is one call
	// (routines.go).
	functions []string
	routines  bool
	// callProcedure: routines are called with CALL and answer with a
	// result set (MySQL), not selected from as functions (PostgreSQL).
	callProcedure bool
	// missingRoutine reports that the called function is not installed
	// (nothing ran); nil: never reported.
	missingRoutine func(error) bool
	// notExecuted reports a lost-connection error that proves the statement
	// did not run or was rolled back (safe to re-run even a COMMIT); nil:
	// never provable.
	notExecuted func(error) bool
	// tableExists is a query with one placeholder, the table name, that
	// returns a row when the table exists.
	tableExists string
	// analyzeAfterLoad: a load ends with ANALYZE of the tables it filled.
	// PostgreSQL has no statistics of them until autovacuum gets there,
	// and plans the first operations meanwhile as over empty tables: on a
	// volume of a million inodes, an online migration's writes into it
	// took 0.6 s per 100 inodes instead of 2 ms.
	analyzeAfterLoad bool
}

// rebind turns '?' placeholders into the dialect's.
func (d *dialect) rebind(q string) string { return d.rebindFrom(q, 0) }

// rebindFrom numbers placeholders from n+1 on.
func (d *dialect) rebindFrom(q string, n int) string {
	if !d.dollar {
		return q
	}
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		if q[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(q[i])
	}
	return b.String()
}

// upsert is an INSERT of cols into table that, when a row with the same
// first nkeys columns exists, overwrites its other columns instead.
func (d *dialect) upsert(table string, cols []string, nkeys int) string {
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ")
	q := "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES (" + marks + ")"
	var sets []string
	for _, c := range cols[nkeys:] {
		if d.mysqlUpsert {
			sets = append(sets, c+" = VALUES("+c+")")
		} else {
			sets = append(sets, c+" = excluded."+c)
		}
	}
	if d.mysqlUpsert {
		return q + " ON DUPLICATE KEY UPDATE " + strings.Join(sets, ", ")
	}
	return q + " ON CONFLICT (" + strings.Join(cols[:nkeys], ", ") + ") DO UPDATE SET " + strings.Join(sets, ", ")
}

// unknownOutcome reports an error after which nobody knows whether the
// statement took effect: the connection broke under it.
func (d *dialect) unknownOutcome(err error) bool {
	return d.connectionLost(err) && (d.notExecuted == nil || !d.notExecuted(err))
}
