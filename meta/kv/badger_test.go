package kv

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
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
