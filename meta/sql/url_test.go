package sql

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestPostgresURLOptions: the password may come from META_PASSWORD, the
// pool limits from the URL, and a unix socket directory from ?host=.
func TestPostgresURLOptions(t *testing.T) {
	p := startPostgres(t)
	ctx := context.Background()
	t.Run("PasswordFromEnvironment", func(t *testing.T) {
		t.Setenv("META_PASSWORD", p.srv.Password)
		url := strings.Replace(p.srv.URL("postgres"), ":"+p.srv.Password+"@", "@", 1)
		err := loadURL(t, url)
		if err == nil || !strings.Contains(err.Error(), "no cairn volume") {
			t.Errorf("Load with the password from META_PASSWORD: %v, want not-formatted", err)
		}
	})
	t.Run("PoolLimits", func(t *testing.T) {
		e, err := Open(p.srv.URL("postgres") + "&max_open_conns=3&max_idle_conns=1")
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if n := e.db.Stats().MaxOpenConnections; n != 3 {
			t.Errorf("max_open_conns=3 gave a pool of %d", n)
		}
	})
	t.Run("UnixSocket", func(t *testing.T) {
		e, err := Open(fmt.Sprintf("postgres://%s@/postgres?host=%s&port=%d", p.srv.User, p.srv.SocketDir, p.srv.Port))
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if _, err := e.Load(ctx); err == nil || !strings.Contains(err.Error(), "no cairn volume") {
			t.Errorf("Load over the unix socket: %v, want not-formatted", err)
		}
	})
}

// TestMySQLURLs parses the forms a user may write.
func TestMySQLURLs(t *testing.T) {
	for _, u := range []string{
		"mysql://u:p@(127.0.0.1:3306)/db",
		"mysql://u@(localhost)/db?max_open_conns=4",
		"mysql://u:p@unix(/run/mysqld/mysqld.sock)/db",
		"mysql://u:p@127.0.0.1:3306/db",
	} {
		e, err := Open(u)
		if err != nil {
			t.Errorf("Open(%q): %v", u, err)
			continue
		}
		e.Close()
	}
	for _, u := range []string{"mysql://(127.0.0.1)/db", "mysql://u@(127.0.0.1)/", "mysql://u@(127.0.0.1/db"} {
		if _, err := Open(u); err == nil {
			t.Errorf("Open(%q) accepted a malformed URL", u)
		}
	}
}
