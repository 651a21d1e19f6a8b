package sql

import (
	dbsql "database/sql"
	"errors"
)

// readPair runs q1 and then q2, two queries of at most one row each, and
// hands each row to its scan function, whose Scan returns sql.ErrNoRows
// when the query found none. q2 starts after q1 has finished, so after
// any row lock q1 waited for, and at READ COMMITTED it sees what the lock's
// previous holder committed. On batchReads dialects (MySQL) both go in one
// multi-statement round trip; elsewhere they are two statements. When
// scan1 fails, scan2 is not called and scan1's error is returned.
func (c *conn) readPair(q1 string, a1 []any, scan1 func(scanner) error, q2 string, a2 []any, scan2 func(scanner) error) error {
	if !c.batch || !c.e.d.batchReads {
		if err := scan1(c.queryRow(q1, a1...)); err != nil {
			return err
		}
		return scan2(c.queryRow(q2, a2...))
	}
	rows, err := c.query(q1+";\n"+q2, append(append([]any(nil), a1...), a2...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if err := scan1(firstRow(rows)); err != nil {
		return err
	}
	if !rows.NextResultSet() {
		if err := rows.Err(); err != nil {
			return err
		}
		return errors.New("the second statement of a pair returned no result set")
	}
	return scan2(firstRow(rows))
}

// oneRow is the first row of a result set, or its absence.
type oneRow struct {
	rows *dbsql.Rows
	err  error // sql.ErrNoRows when there is no row
}

func firstRow(rows *dbsql.Rows) oneRow {
	if rows.Next() {
		return oneRow{rows: rows}
	}
	if err := rows.Err(); err != nil {
		return oneRow{err: err}
	}
	return oneRow{err: dbsql.ErrNoRows}
}

func (r oneRow) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	return r.rows.Scan(dest...)
}
