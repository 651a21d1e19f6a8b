package sql

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cairn/meta"
)

// oneLine checks that a user-facing error is a single line naming what.
func oneLine(t *testing.T, err error, what ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one mentioning %q", what)
	}
	msg := err.Error()
	t.Logf("error: %s", msg)
	if strings.Contains(msg, "\n") {
		t.Errorf("error spans several lines: %q", msg)
	}
	for _, w := range what {
		if !strings.Contains(strings.ToLower(msg), strings.ToLower(w)) {
			t.Errorf("error %q does not mention %q", msg, w)
		}
	}
}

// loadURL opens url and calls Load, which is what mount and status do.
func loadURL(t *testing.T, url string) error {
	t.Helper()
	e, err := Open(url)
	if err != nil {
		return err
	}
	defer e.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = e.Load(ctx)
	return err
}

func TestPostgresBadInput(t *testing.T) {
	_, srv := postgresOpener(t)
	t.Run("WrongPassword", func(t *testing.T) {
		url := strings.Replace(srv.URL("postgres"), srv.Password, "not-the-password", 1)
		oneLine(t, loadURL(t, url), "password")
	})
	t.Run("MissingDatabase", func(t *testing.T) {
		oneLine(t, loadURL(t, srv.URL("nosuchdb")), "no such database", "nosuchdb")
	})
	t.Run("AnotherApplication", func(t *testing.T) {
		srv.SQL(t, "postgres", "CREATE DATABASE otherapp")
		srv.SQL(t, "otherapp", "CREATE TABLE users (id int primary key, name text); INSERT INTO users VALUES (1, 'ann')")
		err := loadURL(t, srv.URL("otherapp"))
		if !errors.Is(err, meta.ErrNotFormatted) {
			t.Fatalf("Load on another application's database: %v, want ErrNotFormatted", err)
		}
		oneLine(t, err, "cairn format")
		got := srv.SQL(t, "otherapp", "SELECT string_agg(table_name, ',' ORDER BY table_name) FROM information_schema.tables WHERE table_schema = 'public'")
		if strings.TrimSpace(got) != "users" {
			t.Errorf("tables after Load: %q, want only users (nothing touched)", got)
		}
	})
	t.Run("Unreachable", func(t *testing.T) {
		start := time.Now()
		err := loadURL(t, fmt.Sprintf("postgres://cairn:x@127.0.0.1:%d/db?sslmode=disable", closedPort(t)))
		oneLine(t, err, "cannot reach")
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("failing to reach the server took %v", d)
		}
	})
	t.Run("MalformedURL", func(t *testing.T) {
		_, err := Open("postgres://cairn@127.0.0.1/db?max_open_conns=many")
		oneLine(t, err, "max_open_conns")
	})
}

func TestMariaDBBadInput(t *testing.T) {
	_, srv := mariadbOpener(t)
	t.Run("WrongPassword", func(t *testing.T) {
		url := strings.Replace(srv.URL("mysql"), srv.Password, "not-the-password", 1)
		oneLine(t, loadURL(t, url), "password")
	})
	t.Run("MissingDatabase", func(t *testing.T) {
		oneLine(t, loadURL(t, srv.URL("nosuchdb")), "no such database", "nosuchdb")
	})
	t.Run("AnotherApplication", func(t *testing.T) {
		srv.SQL(t, "CREATE DATABASE otherapp; CREATE TABLE otherapp.users (id int primary key); INSERT INTO otherapp.users VALUES (1)")
		err := loadURL(t, srv.URL("otherapp"))
		if !errors.Is(err, meta.ErrNotFormatted) {
			t.Fatalf("Load on another application's database: %v, want ErrNotFormatted", err)
		}
		got := srv.SQL(t, "SELECT GROUP_CONCAT(table_name) FROM information_schema.tables WHERE table_schema = 'otherapp'")
		if strings.TrimSpace(got) != "users" {
			t.Errorf("tables after Load: %q, want only users (nothing touched)", got)
		}
	})
	t.Run("Unreachable", func(t *testing.T) {
		start := time.Now()
		err := loadURL(t, fmt.Sprintf("mysql://cairn:x@(127.0.0.1:%d)/db", closedPort(t)))
		oneLine(t, err, "cannot reach")
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("failing to reach the server took %v", d)
		}
	})
	t.Run("MalformedURL", func(t *testing.T) {
		_, err := Open("mysql://cairn@(127.0.0.1:3306")
		oneLine(t, err, "malformed")
	})
}

func TestSQLiteBadInput(t *testing.T) {
	t.Run("MissingFile", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "nothing.db")
		err := loadURL(t, "sqlite3://"+path)
		if !errors.Is(err, meta.ErrNotFormatted) {
			t.Fatalf("Load of a missing file: %v, want ErrNotFormatted", err)
		}
		if !errors.Is(loadURL(t, "sqlite3://"+path), meta.ErrNotFormatted) || fileExists(path) {
			t.Errorf("Load created %s", path)
		}
	})
	t.Run("NewerSchema", func(t *testing.T) {
		e := openSQLite(t)
		ctx := context.Background()
		if err := e.Init(ctx, testFormat(), false); err != nil {
			t.Fatal(err)
		}
		if _, err := e.db.Exec("UPDATE cairn_setting SET value = ? WHERE name = 'schema'", []byte("99")); err != nil {
			t.Fatal(err)
		}
		_, err := e.Load(ctx)
		oneLine(t, err, "schema version 99", "upgrade cairn")
		if err := e.Init(ctx, testFormat(), true); err == nil {
			t.Errorf("a forced Init over a newer schema succeeded")
		}
	})
	t.Run("MalformedURL", func(t *testing.T) {
		_, err := Open("sqlite3://")
		oneLine(t, err, "malformed")
	})
}
