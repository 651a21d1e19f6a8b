package sql

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cairn/internal/testenv"
	"cairn/meta"
)

// cutter is a TCP proxy on loopback between an engine and its database
// that can break a connection at the worst moment: once armed, the next
// request it carries reaches the server (deliver) or not, but no answer
// comes back, and the connection is closed under the client.
type cutter struct {
	ln      net.Listener
	target  string
	armed   atomic.Bool
	deliver atomic.Bool
	cuts    atomic.Int64
	wg      sync.WaitGroup
}

func newCutter(t *testing.T, target string) *cutter {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &cutter{ln: ln, target: target}
	t.Cleanup(func() { ln.Close(); c.wg.Wait() })
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", target)
			if err != nil {
				client.Close()
				continue
			}
			c.wg.Add(2)
			var once sync.Once
			var cutting atomic.Bool // no answer goes back any more
			closeBoth := func() { once.Do(func() { client.Close(); server.Close() }) }
			go func() { // client to server
				defer c.wg.Done()
				buf := make([]byte, 64<<10)
				for {
					n, err := client.Read(buf)
					if err != nil {
						closeBoth()
						return
					}
					if c.armed.CompareAndSwap(true, false) {
						cutting.Store(true)
						c.cuts.Add(1)
						if c.deliver.Load() {
							server.Write(buf[:n])
							time.Sleep(300 * time.Millisecond) // the server runs and commits it
						}
						closeBoth()
						return
					}
					if _, err := server.Write(buf[:n]); err != nil {
						closeBoth()
						return
					}
				}
			}()
			go func() { // server to client
				defer c.wg.Done()
				defer closeBoth()
				buf := make([]byte, 64<<10)
				for {
					n, err := server.Read(buf)
					if err != nil || cutting.Load() {
						return
					}
					if _, err := client.Write(buf[:n]); err != nil {
						return
					}
				}
			}()
		}
	}()
	return c
}

func (c *cutter) addr() string { return c.ln.Addr().String() }

// checkSettledAfterCut breaks the connection under a create and under a
// write, once after the server ran them and once before it got them: the
// engine must find out which (the inode number and the slice id are the
// call's own) and answer success exactly once, never EIO or EEXIST.
func checkSettledAfterCut(t *testing.T, e *Engine, c *cutter) {
	ctx := context.Background()
	if err := e.Init(ctx, testFormat(), false); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Load(ctx); err != nil {
		t.Fatal(err)
	}
	for _, deliver := range []bool{true, false} {
		c.deliver.Store(deliver)
		name := fmt.Sprintf("f-%v", deliver)
		ino, err := e.NextInodes(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		cuts := c.cuts.Load()
		c.armed.Store(true)
		a, err := e.Mknod(ctx, meta.RootCred, meta.RootIno, name, ino, meta.TypeFile, 0644, 0, "")
		if err != nil || a.Type != meta.TypeFile {
			t.Fatalf("create %s across a cut connection (server ran it: %v): %+v, %v", name, deliver, a, err)
		}
		if c.cuts.Load() != cuts+1 {
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
		c.armed.Store(true)
		a, n, err := e.Write(ctx, ino, 0, s, 1)
		if err != nil || a.Length != 4096 || n != 1 {
			t.Fatalf("write to %s across a cut connection (server ran it: %v): %+v, %d records, %v", name, deliver, a, n, err)
		}
		if c.cuts.Load() != cuts+2 {
			t.Fatalf("write to %s: the connection was not cut", name)
		}
		list, err := e.Read(ctx, ino, 0)
		if err != nil || len(list) != 1 || list[0] != s {
			t.Fatalf("chunk of %s after the cut write: %+v, %v; want exactly the one slice", name, list, err)
		}
	}
}

func TestPostgresSettledAfterCut(t *testing.T) {
	p := startPostgres(t)
	c := newCutter(t, fmt.Sprintf("127.0.0.1:%d", p.srv.Port))
	schema := "cut"
	if _, err := p.admin.db.ExecContext(context.Background(), "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	url := strings.Replace(p.srv.URL("postgres"), fmt.Sprintf("@127.0.0.1:%d/", p.srv.Port), "@"+c.addr()+"/", 1)
	e, err := Open(url + "&search_path=" + schema)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	checkSettledAfterCut(t, e, c)
}

func TestMariaDBSettledAfterCut(t *testing.T) {
	srv := testenv.MariaDB(t)
	srv.SQL(t, "CREATE DATABASE cut")
	c := newCutter(t, fmt.Sprintf("127.0.0.1:%d", srv.Port))
	url := strings.Replace(srv.URL("cut"), fmt.Sprintf("(127.0.0.1:%d)", srv.Port), "("+c.addr()+")", 1)
	e, err := Open(url)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	checkSettledAfterCut(t, e, c)
}
