package sql

import (
	dbsql "database/sql"
	"fmt"
	"strconv"

	"cairn/meta"
)

// listedRow reads the rows of a Readdir with attributes (name, ino and
// joinCols) into destinations it reuses from row to row. It scans into
// interface values, which database/sql fills without reflection (an
// integer scanned into an *int64 goes through reflect), converts them
// itself, and hands out the attributes from blocks rather than one
// allocation each: a listing reads hundreds of rows.
type listedRow struct {
	name   dbsql.RawBytes // the driver's bytes, copied once into the name
	values [listedColumns]any
	dest   [listedColumns]any
	attrs  []meta.Attr
}

// listedColumns is name, ino and joinCols.
const listedColumns = 2 + nodeColumns

// listedBlock is how many attributes are allocated at once.
const listedBlock = 64

func newListedRow() *listedRow {
	r := &listedRow{}
	r.dest[0] = &r.name
	for i := 1; i < listedColumns; i++ {
		r.dest[i] = &r.values[i]
	}
	return r
}

// scan reads the current row of rows into en.
func (r *listedRow) scan(rows *dbsql.Rows, en *meta.Entry) error {
	if err := rows.Scan(r.dest[:]...); err != nil {
		return err
	}
	ino, err := integerOf(r.values[1])
	if err != nil {
		return fmt.Errorf("column 2 of a listed entry: %w", err)
	}
	var cols [nodeColumns]int64
	for i := range cols {
		if cols[i], err = integerOf(r.values[i+2]); err != nil {
			return fmt.Errorf("column %d of a listed entry: %w", i+3, err)
		}
	}
	if len(r.attrs) == 0 {
		r.attrs = make([]meta.Attr, listedBlock)
	}
	a := &r.attrs[0]
	r.attrs = r.attrs[1:]
	*a = attrOf(&cols)
	en.Name, en.Ino, en.Type, en.Attr = string(r.name), meta.Ino(ino), a.Type, a
	return nil
}

// integerOf converts what a driver returns for an integer column: int64
// (SQLite, PostgreSQL, MySQL's binary protocol) or its decimal text
// (MySQL's text protocol, which interpolated statements use).
func integerOf(v any) (int64, error) {
	switch v := v.(type) {
	case int64:
		return v, nil
	case []byte:
		return strconv.ParseInt(string(v), 10, 64)
	case string:
		return strconv.ParseInt(v, 10, 64)
	}
	return 0, fmt.Errorf("an integer column holds a %T", v)
}
