package sql

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"cairn/internal/testenv"
	"cairn/meta"
)

// postgresOpener returns an opener of fresh engines on one server started
// for test t.
func postgresOpener(t *testing.T) (open func(t *testing.T) meta.Engine, srv *testenv.PostgresServer) {
	srv = testenv.Postgres(t)
	admin, err := OpenPostgres(srv.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	var n atomic.Int64
	open = func(t *testing.T) meta.Engine {
		t.Helper()
		schema := fmt.Sprintf("t%d", n.Add(1))
		if _, err := admin.db.ExecContext(context.Background(), "CREATE SCHEMA "+schema); err != nil {
			t.Fatal(err)
		}
		e, err := Open(srv.URL("postgres") + "&search_path=" + schema)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	return open, srv
}
