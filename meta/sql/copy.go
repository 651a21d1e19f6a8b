package sql

import (
	"context"
	dbsql "database/sql"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// copier writes a load's rows in bulk, on the connection of the load's
// transaction, by a path faster than the generic multi-row INSERT. Calls
// come from one goroutine at a time; close releases what the copier holds
// and must be called before the transaction ends.
type copier interface {
	// copy writes len(args)/len(cols) rows, row after row, into table's
	// columns. It may keep nothing of args once it returns. Its error
	// names the table.
	copy(table string, cols []string, args []any) error
	// rowsPerCopy is how many rows a copy should carry.
	rowsPerCopy() int
	close() error
}

// copierOf returns the bulk path of the database behind sc: COPY FROM on
// PostgreSQL, prepared multi-row INSERTs bound in one call on SQLite; nil
// for the others (the load then sends multi-row INSERTs through the
// transaction).
func copierOf(ctx context.Context, sc *dbsql.Conn, roundTrips *atomic.Uint64) copier {
	var c copier
	_ = sc.Raw(func(driverConn any) error {
		switch driverConn.(type) {
		case *stdlib.Conn:
			c = &pgCopier{ctx: ctx, sc: sc, roundTrips: roundTrips}
		default:
			c = sqliteCopierOf(ctx, sc, driverConn)
		}
		return nil
	})
	if c == nil {
		return nil
	}
	return startAsyncCopier(c)
}

// pgCopyRows is how many rows a load sends per COPY: one COPY costs a
// round trip to describe the table and one to send the rows, whatever
// their number. SQLite's copies are calls, not round trips.
const pgCopyRows = 8192

// pgCopier is PostgreSQL's COPY FROM: it moves rows without a bound
// parameter each, several times faster than multi-row INSERTs.
type pgCopier struct {
	ctx        context.Context
	sc         *dbsql.Conn
	roundTrips *atomic.Uint64
	rows       [][]any
}

func (p *pgCopier) rowsPerCopy() int { return pgCopyRows }

func (p *pgCopier) copy(table string, cols []string, args []any) error {
	p.rows = p.rows[:0]
	for i := 0; i < len(args); i += len(cols) {
		p.rows = append(p.rows, args[i:i+len(cols)])
	}
	p.roundTrips.Add(2)
	err := p.sc.Raw(func(driverConn any) error {
		_, err := driverConn.(*stdlib.Conn).Conn().CopyFrom(p.ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(p.rows))
		return err
	})
	clear(p.rows)
	return wrapInsert(table, err)
}

func (p *pgCopier) close() error { return nil }
