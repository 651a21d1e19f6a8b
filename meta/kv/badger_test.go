package kv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"cairn/meta"
	"cairn/meta/metatest"
)

func openBadger(t *testing.T, dir string) *Engine {
	t.Helper()
	s, err := OpenBadger(dir, BadgerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e := New(s, "")
	t.Cleanup(func() { e.Close() })
	return e
}

func TestBadgerConformance(t *testing.T) {
	metatest.Run(t, func(t *testing.T) meta.Engine { return openBadger(t, t.TempDir()) })
}

// A second open of a Badger directory, in this process or another, fails
// at once with an error naming the holder.
func TestBadgerLocked(t *testing.T) {
	dir := t.TempDir()
	e := openBadger(t, dir)
	if err := e.Init(context.Background(), meta.Format{Name: "locked"}, false); err != nil {
		t.Fatal(err)
	}
	_, err := OpenBadger(dir, BadgerOptions{})
	if err == nil || !strings.Contains(err.Error(), "in use by pid "+itoa(os.Getpid())) {
		t.Fatalf("second open in this process: %v, want an error naming pid %d", err, os.Getpid())
	}
	if os.Getenv("CAIRN_BADGER_CHILD") != "" {
		return
	}
	// Another process: run this test binary again as the second opener.
	cmd := exec.Command(os.Args[0], "-test.run", "^TestBadgerLockedChild$", "-test.v")
	cmd.Env = append(os.Environ(), "CAIRN_BADGER_CHILD="+dir)
	out, _ := cmd.CombinedOutput()
	if !strings.Contains(string(out), "in use by pid "+itoa(os.Getpid())) {
		t.Fatalf("second process got:\n%s", out)
	}
	// Once the holder closes, the directory opens again with its volume.
	e.Close()
	e2 := openBadger(t, dir)
	if f, err := e2.Load(context.Background()); err != nil || f.Name != "locked" {
		t.Fatalf("reopen: %+v, %v", f, err)
	}
}

// TestBadgerLockedChild is the second process of TestBadgerLocked.
func TestBadgerLockedChild(t *testing.T) {
	dir := os.Getenv("CAIRN_BADGER_CHILD")
	if dir == "" {
		t.Skip("run by TestBadgerLocked")
	}
	_, err := OpenBadger(dir, BadgerOptions{})
	if err == nil {
		t.Fatal("second process opened a locked Badger directory")
	}
	t.Log(err)
}

func TestBadgerReopen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "vol")
	ctx := context.Background()
	s, err := OpenBadger(dir, BadgerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e := New(s, "")
	if _, err := e.Load(ctx); !errors.Is(err, meta.ErrNotFormatted) {
		t.Fatalf("Load of an empty directory: %v", err)
	}
	if err := e.Init(ctx, meta.Format{Name: "v"}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Mknod(ctx, meta.RootCred, meta.RootIno, "kept", 2, meta.TypeFile, 0644, 0, ""); err != nil {
		t.Fatal(err)
	}
	e.Close()
	e = openBadger(t, dir)
	if _, _, err := e.Lookup(ctx, meta.RootIno, "kept"); err != nil {
		t.Fatalf("after reopen: %v", err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// Scan copies pairs into blocks that grow from scanFirstBlock: a long
// scan's pairs come back whole and in order across many blocks (and a pair
// larger than the largest block gets a block of its own), while a scan of
// a few pairs, as an rmdir's check that a directory is empty, allocates
// far less than one largest block (it allocated 64 KiB each before).
func TestBadgerScanBlocks(t *testing.T) {
	s, err := OpenBadger(t.TempDir(), BadgerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	value := func(i int) []byte {
		n := (i * 37) % 300
		if i == 1234 {
			n = scanBlockBytes + 100
		}
		return []byte(strings.Repeat(string(rune('a'+i%26)), n))
	}
	const pairs = 3000
	err = s.Txn(ctx, func(tx Tx) error {
		for i := range pairs {
			tx.Put([]byte(fmt.Sprintf("p%05d", i)), value(i))
		}
		tx.Put([]byte("q"), []byte("short"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int{0, 1, 700} {
		var kvs []KeyValue
		err := s.Txn(ctx, func(tx Tx) error {
			var err error
			kvs, err = tx.Scan([]byte("p"), []byte("q"), limit)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		want := pairs
		if limit > 0 {
			want = limit
		}
		if len(kvs) != want {
			t.Fatalf("limit %d: %d pairs, want %d", limit, len(kvs), want)
		}
		for i, kv := range kvs {
			if string(kv.Key) != fmt.Sprintf("p%05d", i) || !bytes.Equal(kv.Value, value(i)) {
				t.Fatalf("limit %d: pair %d is %q = %d bytes, want p%05d = %d bytes", limit, i, kv.Key, len(kv.Value), i, len(value(i)))
			}
		}
	}
	const scans = 200
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err = s.Txn(ctx, func(tx Tx) error {
		for range scans {
			kvs, err := tx.Scan([]byte("q"), []byte("r"), 0)
			if err != nil || len(kvs) != 1 {
				return fmt.Errorf("scan of q: %v, %v", kvs, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / scans; per >= scanBlockBytes/2 {
		t.Fatalf("a scan of one short pair allocated %d bytes", per)
	} else {
		t.Logf("a scan of one short pair allocated %d bytes", per)
	}
}
