package sql

import (
	"fmt"
	"strings"
)

// Open connects to the SQL database a metadata URL names: sqlite3://,
// postgres:// (or postgresql://) or mysql://.
func Open(rawURL string) (*Engine, error) {
	scheme, _, _ := strings.Cut(rawURL, "://")
	var e *Engine
	var err error
	switch scheme {
	case "sqlite3":
		e, err = OpenSQLite(rawURL)
	case "postgres", "postgresql":
		e, err = OpenPostgres(rawURL)
	case "mysql":
		e, err = OpenMySQL(rawURL)
	default:
		return nil, fmt.Errorf("%q is not a SQL metadata URL (sqlite3://, postgres://, mysql://)", rawURL)
	}
	if err != nil {
		return nil, err
	}
	e.source = rawURL
	return e, nil
}
