package sql

import (
	dbsql "database/sql"
	"fmt"
	"strings"
)

// readPair runs q1 and then q2, two queries of at most one row each, and
// hands each row to its scan function, whose Scan returns sql.ErrNoRows
// when the query found none. See readSeq.
func (c *conn) readPair(q1 string, a1 []any, scan1 func(scanner) error, q2 string, a2 []any, scan2 func(scanner) error) error {
	return c.readSeq(readStep{q1, a1, scan1}, readStep{q2, a2, scan2})
}

// readStep is one query of readSeq and what reads its row.
type readStep struct {
	q    string
	args []any
	scan func(scanner) error
}

// readSeq runs queries of at most one row each, in order, and hands each
// row to its step's scan function. A query starts after the one before it
// has finished, so after any row lock that one waited for, and at READ
// COMMITTED it sees what the lock's previous holder committed. On
// batchReads dialects (MySQL) they all go in one multi-statement round
// trip; elsewhere each is a statement of its own. The first scan that
// fails ends the sequence with its error; the later scans are not called.
func (c *conn) readSeq(steps ...readStep) error {
	if !c.batch || !c.e.d.batchReads {
		for _, s := range steps {
			if err := s.scan(c.queryRow(s.q, s.args...)); err != nil {
				return err
			}
		}
		return nil
	}
	qs := make([]string, len(steps))
	var args []any
	for i, s := range steps {
		qs[i] = s.q
		args = append(args, s.args...)
	}
	rows, err := c.query(strings.Join(qs, ";\n"), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for i, s := range steps {
		if i > 0 && !rows.NextResultSet() {
			if err := rows.Err(); err != nil {
				return err
			}
			return fmt.Errorf("statement %d of a multi-statement read returned no result set", i+1)
		}
		if err := s.scan(firstRow(rows)); err != nil {
			return err
		}
	}
	return nil
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
