package sql

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"cairn/internal/testenv"
	"cairn/meta"
)

// checkSettledAfterCut breaks the connection under a create and under a
// write, once after the server ran them and once before it got them: the
// engine must find out which (the inode number and the slice id are the
// call's own) and answer success exactly once, never EIO or EEXIST.
func checkSettledAfterCut(t *testing.T, e *Engine, c *testenv.Cutter) {
	ctx := context.Background()
	if err := e.Init(ctx, testFormat(), false); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Load(ctx); err != nil {
		t.Fatal(err)
	}
	for _, deliver := range []bool{true, false} {
		name := fmt.Sprintf("f-%v", deliver)
		ino, err := e.NextInodes(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		cuts := c.Cuts()
		c.Arm(deliver, 0, nil)
		a, err := e.Mknod(ctx, meta.RootCred, meta.RootIno, name, ino, meta.TypeFile, 0644, 0, "")
		if err != nil || a.Type != meta.TypeFile {
			t.Fatalf("create %s across a cut connection (server ran it: %v): %+v, %v", name, deliver, a, err)
		}
		if c.Cuts() != cuts+1 {
			t.Fatalf("create %s: the connection was not cut", name)
		}
		got, _, err := e.Lookup(ctx, meta.RootIno, name)
		if err != nil || got != ino {
			t.Fatalf("lookup %s after the cut create: %d, %v; want %d", name, got, err, ino)
		}
		id, err := e.NextSlices(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		s := meta.Slice{ID: id, Size: 4096, Len: 4096}
		c.Arm(deliver, 0, nil)
		a, n, err := e.Write(ctx, ino, 0, s, 1)
		if err != nil || a.Length != 4096 || n != 1 {
			t.Fatalf("write to %s across a cut connection (server ran it: %v): %+v, %d records, %v", name, deliver, a, n, err)
		}
		if c.Cuts() != cuts+2 {
			t.Fatalf("write to %s: the connection was not cut", name)
		}
		list, err := e.Read(ctx, ino, 0)
		if err != nil || len(list) != 1 || list[0] != s {
			t.Fatalf("chunk of %s after the cut write: %+v, %v; want exactly the one slice", name, list, err)
		}
	}
}

func TestPostgresSettledAfterCut(t *testing.T) {
	e, c := postgresThroughCutter(t, "cut")
	checkSettledAfterCut(t, e, c)
}

func TestMariaDBSettledAfterCut(t *testing.T) {
	e, c := mariaDBThroughCutter(t, "cut")
	checkSettledAfterCut(t, e, c)
}

// postgresThroughCutter opens an engine on a new schema of a PostgreSQL
// server, reached through a cutter.
func postgresThroughCutter(t *testing.T, schema string) (*Engine, *testenv.Cutter) {
	p := startPostgres(t)
	c := testenv.NewCutter(t, fmt.Sprintf("127.0.0.1:%d", p.srv.Port))
	if _, err := p.admin.db.ExecContext(context.Background(), "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	url := strings.Replace(p.srv.URL("postgres"), fmt.Sprintf("@127.0.0.1:%d/", p.srv.Port), "@"+c.Addr()+"/", 1)
	e, err := Open(url + "&search_path=" + schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, c
}

// mariaDBThroughCutter opens an engine on a new database of a MariaDB
// server, reached through a cutter.
func mariaDBThroughCutter(t *testing.T, db string) (*Engine, *testenv.Cutter) {
	srv := testenv.MariaDB(t)
	srv.SQL(t, "CREATE DATABASE "+db)
	c := testenv.NewCutter(t, fmt.Sprintf("127.0.0.1:%d", srv.Port))
	url := strings.Replace(srv.URL(db), fmt.Sprintf("(127.0.0.1:%d)", srv.Port), "("+c.Addr()+")", 1)
	e, err := Open(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, c
}
