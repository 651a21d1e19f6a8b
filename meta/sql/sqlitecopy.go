package sql

import (
	"context"
	dbsql "database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"

	"github.com/mattn/go-sqlite3"
)

// sqliteCopyRows is how many rows one of a SQLite load's INSERTs carries
// (at most 12 columns: 12,000 parameters, below SQLite's 32,766). From
// 100 to 2,000 rows the time per row measured the same.
const sqliteCopyRows = 1000

// sqliteCopier runs a load's multi-row INSERTs on the driver's own
// connection, as queries of prepared statements: for a query the driver
// resets, binds every parameter and steps in one call into C, where an
// Exec (or anything through database/sql) crosses into C once per
// parameter and converts each argument on the way. On a million-inode
// load that was a third of the time.
type sqliteCopier struct {
	ctx context.Context
	sc  *dbsql.Conn
	// prepared holds the load's INSERTs, on its connection: one per
	// table for full batches and one for each table's last, shorter one.
	prepared map[insertShape]driver.Stmt
	// values holds the last copy's arguments (until the next copy or
	// close), numbered once.
	values []driver.NamedValue
}

// sqliteCopierOf returns a copier if driverConn is SQLite's, else nil.
func sqliteCopierOf(ctx context.Context, sc *dbsql.Conn, driverConn any) copier {
	if _, ok := driverConn.(*sqlite3.SQLiteConn); !ok {
		return nil
	}
	return &sqliteCopier{ctx: ctx, sc: sc, prepared: map[insertShape]driver.Stmt{}}
}

// insertShape names a prepared INSERT: its table and number of rows.
type insertShape struct {
	table string
	rows  int
}

func (s *sqliteCopier) rowsPerCopy() int { return sqliteCopyRows }

func (s *sqliteCopier) copy(table string, cols []string, args []any) error {
	shape := insertShape{table, len(args) / len(cols)}
	for len(s.values) < len(args) {
		s.values = append(s.values, driver.NamedValue{Ordinal: len(s.values) + 1})
	}
	values := s.values[:len(args)]
	for i, a := range args {
		values[i].Value = a
	}
	err := s.sc.Raw(func(driverConn any) error {
		stmt, ok := s.prepared[shape]
		if !ok {
			var err error
			stmt, err = driverConn.(*sqlite3.SQLiteConn).PrepareContext(s.ctx, insertStatement(table, cols, shape.rows))
			if err != nil {
				return err
			}
			s.prepared[shape] = stmt
		}
		rows, err := stmt.(driver.StmtQueryContext).QueryContext(s.ctx, values)
		if err != nil {
			return err
		}
		return rows.Close()
	})
	return wrapInsert(table, err)
}

func (s *sqliteCopier) close() error {
	var errs []error
	err := s.sc.Raw(func(any) error {
		for _, stmt := range s.prepared {
			errs = append(errs, stmt.Close())
		}
		return nil
	})
	s.prepared, s.values = nil, nil
	return errors.Join(append(errs, err)...)
}

// insertStatement is an INSERT of rows rows into table's columns.
func insertStatement(table string, cols []string, rows int) string {
	row := "(?" + strings.Repeat(", ?", len(cols)-1) + ")"
	return "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES " + row + strings.Repeat(", "+row, rows-1)
}

// wrapInsert names the table a bulk insert failed on.
func wrapInsert(table string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("insert into %s: %w", table, err)
}
