package sql

import (
	"fmt"
	"sync/atomic"
	"testing"

	"cairn/internal/testenv"
	"cairn/meta"
	"cairn/meta/metatest"
)

// mariaEnv is one MariaDB server for a test; each engine gets a database
// of its own in it.
type mariaEnv struct {
	srv *testenv.MariaDBServer
	n   atomic.Int64
}

func (m *mariaEnv) engine(tb testing.TB) *Engine {
	tb.Helper()
	db := fmt.Sprintf("t%d", m.n.Add(1))
	m.srv.SQL(tb, "CREATE DATABASE "+db)
	e, err := Open(m.srv.URL(db))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.Close() })
	return e
}

// mariadbOpener returns an opener of fresh engines on one MariaDB server
// started for test t.
func mariadbOpener(t *testing.T) (open func(t *testing.T) meta.Engine, srv *testenv.MariaDBServer) {
	m := &mariaEnv{srv: testenv.MariaDB(t)}
	return func(t *testing.T) meta.Engine { return m.engine(t) }, m.srv
}

func TestMariaDBConformance(t *testing.T) {
	open, _ := mariadbOpener(t)
	metatest.Run(t, open)
}

func TestMariaDBConcurrency(t *testing.T) {
	open, _ := mariadbOpener(t)
	metatest.RunConcurrency(t, open, reopen)
	t.Run("UsageRows", func(t *testing.T) { testUsageRows(t, open(t).(*Engine)) })
}
