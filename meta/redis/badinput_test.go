package redis

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"cairn/internal/testenv"
	"cairn/meta"
)

// wantOneLine wants an error
// of one line that mentions each of words.
func wantOneLine(t *testing.T, err error, words ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one mentioning %q", words)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Errorf("error spans lines: %q", msg)
	}
	for _, w := range words {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not mention %q", msg, w)
		}
	}
	t.Logf("error: %s", msg)
}

func TestWrongPassword(t *testing.T) {
	s := testenv.Redis(t, "--requirepass", "right")
	_, err := Open(context.Background(), "redis://:wrong@"+s.Addr()+"/0")
	wantOneLine(t, err, "refused the credentials", "REDIS_PASSWORD")
	if strings.Contains(err.Error(), "wrong") {
		t.Errorf("the error shows the password: %v", err)
	}
	_, err = Open(context.Background(), s.URL(0))
	wantOneLine(t, err, "refused the credentials")
	t.Setenv("REDIS_PASSWORD", "right")
	e, err := Open(context.Background(), s.URL(0))
	if err != nil {
		t.Fatalf("Open with REDIS_PASSWORD: %v", err)
	}
	e.Close()
}

func TestUnreachable(t *testing.T) {
	port := testenv.FreePort(t)
	start := time.Now()
	_, err := Open(context.Background(), fmt.Sprintf("redis://127.0.0.1:%d/0", port))
	wantOneLine(t, err, "cannot reach Redis")
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("failing took %v", d)
	}
}

func TestNotRedis(t *testing.T) {
	for _, reply := range []string{"HTTP/1.1 400 Bad Request\r\n\r\n", "\x00\xff garbage \x01\r\n", ""} {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				if reply != "" {
					c.Write([]byte(reply))
					c.Close()
				} else {
					defer c.Close() // accepts and stays silent
				}
			}
		}()
		start := time.Now()
		_, err = Open(context.Background(), "redis://"+l.Addr().String()+"/0")
		wantOneLine(t, err, l.Addr().String())
		if d := time.Since(start); d > 15*time.Second {
			t.Errorf("failing took %v", d)
		}
		l.Close()
	}
}

func TestForeignDatabase(t *testing.T) {
	s := server(t)
	ctx := context.Background()
	e := fresh(t, s, 3)
	if err := e.rdb.Set(ctx, "somebody:else", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	f := meta.Format{Name: "vol", Version: meta.FormatVersion}
	wantOneLine(t, e.Init(ctx, f, false), "not a cairn volume", "empty database")
	_, err := e.Load(ctx)
	if !errors.Is(err, meta.ErrNotFormatted) {
		t.Errorf("Load of a foreign database: %v, want ErrNotFormatted", err)
	}
	wantOneLine(t, err, "holds keys but no cairn volume")
	if n := e.rdb.DBSize(ctx).Val(); n != 1 {
		t.Errorf("a refused Init left %d keys, want the 1 that was there", n)
	}
}

func TestOtherVolume(t *testing.T) {
	s := server(t)
	ctx := context.Background()
	e := fresh(t, s, 4)
	if err := e.Init(ctx, meta.Format{Name: "first", Version: meta.FormatVersion}, false); err != nil {
		t.Fatal(err)
	}
	other := openURL(t, s.URL(4))
	err := other.Init(ctx, meta.Format{Name: "second", Version: meta.FormatVersion}, false)
	if !errors.Is(err, meta.ErrFormatted) {
		t.Errorf("Init over another volume: %v, want ErrFormatted", err)
	}
	wantOneLine(t, err, `"first"`, "cairn config")
	if f, err := other.Load(ctx); err != nil || f.Name != "first" {
		t.Errorf("after a refused Init, Load = %+v, %v", f, err)
	}
}

func TestEvictionRefused(t *testing.T) {
	s := testenv.Redis(t, "--maxmemory", "100mb", "--maxmemory-policy", "allkeys-lru")
	_, err := Open(context.Background(), s.URL(0))
	wantOneLine(t, err, "allkeys-lru", "noeviction")
}

func TestDurabilityReported(t *testing.T) {
	s := testenv.Redis(t, "--appendonly", "no")
	e := openURL(t, s.URL(0))
	if info := e.Server(); info.AOF || !strings.Contains(info.Durability(), "AOF off") || info.Version == "" {
		t.Errorf("server with AOF off reported as %+v (%s)", info, info.Durability())
	}
	s2 := testenv.Redis(t, "--appendfsync", "always")
	if info := openURL(t, s2.URL(0)).Server(); !info.AOF || info.Fsync != "always" {
		t.Errorf("server with appendfsync always reported as %+v", info)
	}
}

func TestUnixSocket(t *testing.T) {
	s := server(t)
	e := openURL(t, "unix://"+s.Socket+"?db=2")
	if err := e.Init(context.Background(), meta.Format{Name: "sock", Version: meta.FormatVersion}, false); err != nil {
		t.Fatal(err)
	}
	tcp := openURL(t, s.URL(2))
	if f, err := tcp.Load(context.Background()); err != nil || f.Name != "sock" {
		t.Errorf("volume formatted over the socket, loaded over TCP db 2: %+v, %v", f, err)
	}
}
