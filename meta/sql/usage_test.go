package sql

import (
	"context"
	"database/sql/driver"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"cairn/meta"
)

// testUsageRows checks the usage rows on a client/server database: a
// volume of an earlier release (its usage in one row, older routines)
// gains the other rows when opened, keeping its usage; and a create does
// not wait for another transaction that holds the first row and its own
// connection's row until it commits.
func testUsageRows(t *testing.T, old *Engine) {
	ctx := context.Background()
	if err := old.Init(ctx, testFormat(), false); err != nil {
		t.Fatal(err)
	}
	rows := func(e *Engine) (n int) {
		t.Helper()
		if err := e.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM cairn_usage").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := rows(old); n != usageShards {
		t.Fatalf("a new volume has %d usage rows, want %d", n, usageShards)
	}
	for _, q := range []string{"DELETE FROM cairn_usage WHERE id > 1", "UPDATE cairn_usage SET inodes = 7, space = 4096 WHERE id = 1"} {
		if _, err := old.db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := old.db.ExecContext(ctx, old.d.rebind("UPDATE cairn_setting SET value = ? WHERE name = 'routines'"), []byte("18")); err != nil {
		t.Fatal(err)
	}
	e := reopen(t, old).(*Engine)
	if _, err := e.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if n := rows(e); n != usageShards {
		t.Fatalf("a volume of an earlier release has %d usage rows once opened, want %d", n, usageShards)
	}
	if u, err := e.Usage(ctx); err != nil || u.Inodes != 7 || u.Space != 4096 {
		t.Fatalf("usage after the upgrade: %+v (%v), want 7 inodes and 4096 bytes", u, err)
	}

	// Two connections, held out of the pool's two: a holds its row and the
	// first; the create runs on b, whose row is neither.
	e.db.SetMaxOpenConns(2)
	a, err := e.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var sa, sb int64
	if err := a.QueryRowContext(ctx, "SELECT "+e.d.usageShard).Scan(&sa); err != nil {
		t.Fatal(err)
	}
	for try := 0; ; try++ {
		b, err := e.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.QueryRowContext(ctx, "SELECT "+e.d.usageShard).Scan(&sb); err != nil {
			t.Fatal(err)
		}
		if sb != sa && sb != 1 {
			b.Close() // back to the pool, for the create
			break
		}
		b.Raw(func(any) error { return driver.ErrBadConn }) // discarded
		b.Close()
		if try == 20 {
			t.Fatalf("20 connections all use usage row 1 or %d", sa)
		}
	}
	tx, err := a.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, e.d.rebind("UPDATE cairn_usage SET inodes = inodes WHERE id = 1 OR id = ?"), sa); err != nil {
		t.Fatal(err)
	}
	tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	ino, err := e.NextInodes(tctx, 1)
	if err == nil {
		_, err = e.Mknod(tctx, meta.RootCred, meta.RootIno, "f", ino, meta.TypeFile, 0644, 0, "")
	}
	if err != nil {
		t.Fatalf("a create while another transaction holds usage rows 1 and %d (its own is %d): %v", sa, sb, err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if u, err := e.Usage(ctx); err != nil || u.Inodes != 8 {
		t.Fatalf("usage after a create: %+v (%v), want 8 inodes", u, err)
	}
}

// Every routine changes the usage row the Go statements change, and both
// pick one of the usageShards rows.
func TestRoutinesChangeTheConnectionsUsageRow(t *testing.T) {
	update := regexp.MustCompile(`(?s)UPDATE cairn_usage SET .*?;`)
	for _, d := range []*dialect{&postgresDialect, &mysqlDialect} {
		if !strings.HasSuffix(d.usageShard, " % "+strconv.Itoa(usageShards)+" + 1") {
			t.Errorf("%s picks usage row %s, want one of %d", d.name, d.usageShard, usageShards)
		}
		files, err := fs.Glob(routineFiles, "routines/"+d.name+"/*.sql")
		if err != nil {
			t.Fatal(err)
		}
		found := 0
		for _, f := range files {
			text, err := fs.ReadFile(routineFiles, f)
			if err != nil {
				t.Fatal(err)
			}
			for _, stmt := range update.FindAllString(string(text), -1) {
				found++
				if !strings.HasSuffix(stmt, " WHERE id = "+d.usageShard+";") {
					t.Errorf("%s: %s, want it to change row %s", f, stmt, d.usageShard)
				}
			}
		}
		if found < 5 {
			t.Errorf("%s routines change usage in %d statements, want those of create, removal, write, truncate and fallocate", d.name, found)
		}
	}
}
