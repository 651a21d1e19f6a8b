package redis

import (
	"context"
	"testing"

	"cairn/internal/testenv"
	"cairn/meta"
)

// server starts a redis-server for one test.
func server(t testing.TB) *testenv.RedisServer {
	t.Helper()
	return testenv.Redis(t)
}

// openURL opens an engine on url and closes it when the test ends.
func openURL(t testing.TB, url string) *Engine {
	t.Helper()
	e, err := Open(context.Background(), url)
	if err != nil {
		t.Fatalf("Open %s: %v", url, err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// fresh empties database db of s and opens an engine on it.
func fresh(t testing.TB, s *testenv.RedisServer, db int) *Engine {
	t.Helper()
	e := openURL(t, s.URL(db))
	if err := e.rdb.FlushDB(context.Background()).Err(); err != nil {
		t.Fatalf("FLUSHDB: %v", err)
	}
	return e
}

// formatted opens a formatted, empty volume on a server of its own.
func formatted(t testing.TB) *Engine {
	t.Helper()
	e := fresh(t, server(t), 0)
	f := meta.Format{Name: "test", UUID: "u", Storage: "mem", BlockSize: 4 << 20, Compression: "none", Version: meta.FormatVersion}
	if err := e.Init(context.Background(), f, false); err != nil {
		t.Fatalf("Init: %v", err)
	}
	return e
}
