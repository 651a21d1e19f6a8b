package sql

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"cairn/meta"
	"cairn/meta/metatest"
)

// createMany makes n files named prefix-i in the root from 4 goroutines,
// each in its own directory-entry race with the other process.
func createMany(ctx context.Context, e meta.Engine, prefix string, n int) error {
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < n; i += 4 {
				ino, err := e.NextInodes(ctx, 1)
				if err == nil {
					_, err = e.Mknod(ctx, meta.RootCred, meta.RootIno, fmt.Sprintf("%s-%d", prefix, i), ino, meta.TypeFile, 0644, 0, "")
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// TestSQLiteTwoProcesses has this test binary and a child copy of it
// write to one database file at once, as two mounts of a volume do.
func TestSQLiteTwoProcesses(t *testing.T) {
	ctx := context.Background()
	if path := os.Getenv("CAIRN_SQLITE_CHILD"); path != "" {
		e, err := OpenSQLite("sqlite3://" + path)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if err := createMany(ctx, e, "child", 300); err != nil {
			t.Fatalf("child: %v", err)
		}
		return
	}
	path := filepath.Join(t.TempDir(), "vol.db")
	e, err := OpenSQLite("sqlite3://" + path)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.Init(ctx, testFormat(), false); err != nil {
		t.Fatal(err)
	}
	child := exec.Command(os.Args[0], "-test.run=^TestSQLiteTwoProcesses$", "-test.count=1")
	child.Env = append(os.Environ(), "CAIRN_SQLITE_CHILD="+path)
	out := make(chan error, 1)
	go func() {
		b, err := child.CombinedOutput()
		if err != nil {
			err = fmt.Errorf("%v: %s", err, b)
		}
		out <- err
	}()
	if err := createMany(ctx, e, "parent", 300); err != nil {
		t.Errorf("parent: %v", err)
	}
	if err := <-out; err != nil {
		t.Fatalf("child process: %v", err)
	}
	n := 0
	for after := ""; ; {
		ents, err := e.Readdir(ctx, meta.RootIno, after, 100, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(ents) == 0 {
			break
		}
		n += len(ents)
		after = ents[len(ents)-1].Name
	}
	if n != 600 {
		t.Errorf("root lists %d entries, want 600", n)
	}
	if err := metatest.Verify(ctx, e); err != nil {
		t.Error(err)
	}
}
