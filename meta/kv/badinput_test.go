package kv_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"cairn/internal/testenv"
	"cairn/meta"
	"cairn/meta/engines"
)

// Bad input reaches the user as one clear error, quickly, through the same
// door the CLI uses (engines.Open, then Load).

func TestBadURLs(t *testing.T) {
	for _, u := range []string{
		"badger://relative/dir",
		"badger:///tmp/x?sync=maybe",
		"badger:///tmp/x?color=blue",
		"etcd://",
		"etcd://h1:2379,,h2:2379/p",
		"etcd://127.0.0.1:2379/p?bogus=1",
		"etcd://127.0.0.1:2379/p?cacert=/nonexistent/ca.pem",
		"etcd://127.0.0.1:2379/p?cert=/tmp/c.pem",
	} {
		e, err := engines.Open(u)
		if err == nil {
			e.Close()
			t.Errorf("Open(%q) succeeded", u)
			continue
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("Open(%q): error spans lines: %q", u, err)
		}
		t.Logf("%s: %v", u, err)
	}
}

func TestEtcdUnreachable(t *testing.T) {
	port := testenv.FreePort(t)
	start := time.Now()
	e, err := engines.Open(fmt.Sprintf("etcd://127.0.0.1:%d/vol", port))
	if err == nil {
		e.Close()
		t.Fatal("Open of an etcd address where nothing listens succeeded")
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("took %v to give up", took)
	}
	if !strings.Contains(err.Error(), "cannot reach etcd") {
		t.Errorf("unclear error: %v", err)
	}
	t.Logf("after %v: %v", time.Since(start).Round(time.Millisecond), err)
}

func TestTiKVUnreachable(t *testing.T) {
	port := testenv.FreePort(t)
	start := time.Now()
	e, err := engines.Open(fmt.Sprintf("tikv://127.0.0.1:%d/vol", port))
	if err == nil {
		e.Close()
		t.Fatal("Open of a PD address where nothing listens succeeded")
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("took %v to give up", took)
	}
	if !strings.Contains(err.Error(), "cannot reach TiKV") || strings.Contains(err.Error(), "\n") {
		t.Errorf("unclear error: %q", err)
	}
	t.Logf("after %v: %v", time.Since(start).Round(time.Millisecond), err)
}

// A prefix holding another volume, or keys that are no volume, is "not
// formatted", never someone else's volume.
func TestEtcdWrongPrefix(t *testing.T) {
	c := testenv.Etcd(t)
	ctx := context.Background()
	e, err := engines.Open(c.URL("vol-a"))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.Init(ctx, meta.Format{Name: "a"}, false); err != nil {
		t.Fatal(err)
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints()})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if _, err := cli.Put(ctx, "junk/some-key", "not cairn"); err != nil {
		t.Fatal(err)
	}
	for _, prefix := range []string{"vol-b", "vol", "junk", ""} {
		o, err := engines.Open(c.URL(prefix))
		if err != nil {
			t.Fatal(err)
		}
		_, err = o.Load(ctx)
		o.Close()
		if !errors.Is(err, meta.ErrNotFormatted) {
			t.Errorf("Load of prefix %q: %v, want ErrNotFormatted", prefix, err)
		}
	}
	if err := e.Init(ctx, meta.Format{Name: "again"}, false); !errors.Is(err, meta.ErrFormatted) {
		t.Errorf("second Init without force: %v", err)
	}
}

func TestBadgerBadInput(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	e, err := engines.Open("badger://" + dir)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Load(ctx); !errors.Is(err, meta.ErrNotFormatted) {
		t.Errorf("Load of an empty directory: %v", err)
	}
	if err := e.Init(ctx, meta.Format{Name: "b"}, false); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = engines.Open("badger://" + dir)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("in use by pid %d", os.Getpid())) {
		t.Fatalf("second open of a locked directory: %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("locked directory took %v to refuse", time.Since(start))
	}
	// A file where the directory should be.
	f := dir + "/cairn.lock/x"
	if _, err := engines.Open("badger://" + f); err == nil {
		t.Errorf("Open of a path under a file succeeded")
	}
}
