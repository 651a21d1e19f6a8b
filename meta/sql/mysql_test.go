package sql

import (
	"fmt"
	"sync/atomic"
	"testing"

	"cairn/internal/testenv"
	"cairn/meta"
	"cairn/meta/metatest"
)

// mariadbOpener returns an opener of fresh engines, each on a database of
// its own in one MariaDB server started for test t.
func mariadbOpener(t *testing.T) (open func(t *testing.T) meta.Engine, srv *testenv.MariaDBServer) {
	srv = testenv.MariaDB(t)
	var n atomic.Int64
	open = func(t *testing.T) meta.Engine {
		t.Helper()
		db := fmt.Sprintf("t%d", n.Add(1))
		srv.SQL(t, "CREATE DATABASE "+db)
		e, err := Open(srv.URL(db))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	return open, srv
}

func TestMariaDBConformance(t *testing.T) {
	open, _ := mariadbOpener(t)
	metatest.Run(t, open)
}

func TestMariaDBConcurrency(t *testing.T) {
	open, _ := mariadbOpener(t)
	metatest.RunConcurrency(t, open, reopen)
}
