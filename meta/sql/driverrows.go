package sql

import (
	"context"
	dbsql "database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
)

// eachDriverRow runs query on sc's driver connection and calls fn for
// every row, as the rows stream in, bypassing database/sql: its Scan
// converts each column through reflection, which cost a SQLite dump more
// CPU than SQLite spent reading the rows. The driver must return int64,
// []byte, string or nil for each column (SQLite's does for INTEGER, BLOB
// and TEXT); fn's scanner stores them in *int64, *[]byte and *string.
func eachDriverRow(ctx context.Context, sc *dbsql.Conn, query string, fn func(row scanner) error) error {
	return sc.Raw(func(driverConn any) error {
		queryer, ok := driverConn.(driver.QueryerContext)
		if !ok {
			return errors.New("the database driver cannot query")
		}
		rows, err := queryer.QueryContext(ctx, query, nil)
		if err != nil {
			return err
		}
		defer rows.Close()
		row := &driverRow{values: make([]driver.Value, len(rows.Columns()))}
		for {
			err := rows.Next(row.values)
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			if err := fn(row); err != nil {
				return err
			}
		}
	})
}

// driverRow is one row as the driver returned it.
type driverRow struct{ values []driver.Value }

func (r *driverRow) Scan(dest ...any) error {
	if len(dest) != len(r.values) {
		return fmt.Errorf("scan %d columns into %d values", len(r.values), len(dest))
	}
	for i, d := range dest {
		ok := false
		switch d := d.(type) {
		case *int64:
			*d, ok = r.values[i].(int64)
		case *[]byte:
			switch v := r.values[i].(type) {
			case []byte:
				*d, ok = v, true
			case string:
				*d, ok = []byte(v), true
			case nil:
				*d, ok = nil, true
			}
		case *string:
			switch v := r.values[i].(type) {
			case string:
				*d, ok = v, true
			case []byte:
				*d, ok = string(v), true
			}
		}
		if !ok {
			return fmt.Errorf("column %d holds %T, which cannot be stored in %T", i+1, r.values[i], d)
		}
	}
	return nil
}
