package sql

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"cairn/internal/testenv"
	"cairn/meta"
)

// pgEnv is one PostgreSQL server for a test; each engine gets a schema of
// its own in it (search_path), which is much quicker than a database each.
type pgEnv struct {
	srv   *testenv.PostgresServer
	admin *Engine
	n     atomic.Int64
}

func startPostgres(tb testing.TB) *pgEnv {
	p := &pgEnv{srv: testenv.Postgres(tb)}
	admin, err := OpenPostgres(p.srv.URL("postgres"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { admin.Close() })
	p.admin = admin
	return p
}

// engine opens an engine on a fresh, empty schema.
func (p *pgEnv) engine(tb testing.TB) *Engine {
	tb.Helper()
	schema := fmt.Sprintf("t%d", p.n.Add(1))
	if _, err := p.admin.db.ExecContext(context.Background(), "CREATE SCHEMA "+schema); err != nil {
		tb.Fatal(err)
	}
	e, err := Open(p.srv.URL("postgres") + "&search_path=" + schema)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.Close() })
	return e
}

// postgresOpener returns an opener of fresh engines on one server started
// for test t.
func postgresOpener(t *testing.T) (open func(t *testing.T) meta.Engine, srv *testenv.PostgresServer) {
	p := startPostgres(t)
	return func(t *testing.T) meta.Engine { return p.engine(t) }, p.srv
}
