package sql

import (
	"context"
	dbsql "database/sql"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// copyRows is how many rows a load sends per COPY: one COPY costs a round
// trip to describe the table and one to send the rows, whatever their
// number.
const copyRows = 8192

// copyFunc writes rows into table's columns in one bulk command.
type copyFunc func(table string, cols []string, rows [][]any) error

// copierOf returns PostgreSQL's COPY FROM on the connection of a load's
// transaction, or nil when the connection is not PostgreSQL's (pgx): it
// moves rows without a bound parameter each, several times faster than
// multi-row INSERTs. The rows are part of the transaction open on sc.
func copierOf(ctx context.Context, sc *dbsql.Conn) copyFunc {
	isPgx := false
	_ = sc.Raw(func(driverConn any) error {
		_, isPgx = driverConn.(*stdlib.Conn)
		return nil
	})
	if !isPgx {
		return nil
	}
	return func(table string, cols []string, rows [][]any) error {
		return sc.Raw(func(driverConn any) error {
			_, err := driverConn.(*stdlib.Conn).Conn().CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows))
			return err
		})
	}
}
