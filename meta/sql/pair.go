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
	return c.readSeq(readStep{q: q1, args: a1, scan: scan1}, readStep{q: q2, args: a2, scan: scan2})
}

// readStep is one query of readSeq and what reads its row.
type readStep struct {
	q    string
	args []any
	scan func(scanner) error
	// all, when set instead of scan, reads every row of the result set.
	all func(*dbsql.Rows) error
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
			if err := c.readStepAlone(s); err != nil {
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
		if s.all != nil {
			err = s.all(rows)
		} else {
			err = s.scan(firstRow(rows))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// readStepAlone runs one step as a statement of its own.
func (c *conn) readStepAlone(s readStep) error {
	if s.all == nil {
		return s.scan(c.queryRow(s.q, s.args...))
	}
	rows, err := c.query(s.q, s.args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return s.all(rows)
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
