package sql

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"

	"cairn/meta"
)

// queued waits until a leader has taken its group and n operations
// wait for the next one.
func queued(e *Engine, n int) {
	for {
		e.group.mu.Lock()
		ok := e.group.leading && len(e.group.queue) == n
		e.group.mu.Unlock()
		if ok {
			return
		}
		runtime.Gosched()
	}
}

// TestGroupCommit: operations that arrive while a commit runs share the
// next one; one that fails with its own errno leaves the others of its
// group done, and every acknowledged change is in the database after it
// is opened again.
func TestGroupCommit(t *testing.T) {
	ctx := context.Background()
	path := t.TempDir() + "/vol.db"
	e, err := Open("sqlite3://" + path)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Init(ctx, testFormat(), false); err != nil {
		t.Fatal(err)
	}
	first, err := e.NextInodes(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	mkdir := func(i int, name string) error {
		_, err := e.Mknod(ctx, meta.RootCred, meta.RootIno, name, first+meta.Ino(i), meta.TypeDirectory, 0755, 0, "")
		return err
	}
	if err := mkdir(0, "taken"); err != nil {
		t.Fatal(err)
	}
	// Hold the writer: the first operation leads and waits for it with
	// a group of its own; the three after it queue behind.
	e.writeMu.Lock()
	names := []string{"a", "b", "taken", "c"}
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = mkdir(i+1, name)
		}()
		queued(e, i) // in this order: one leads, the others queue

	}
	before := e.group.commits.Load()
	e.writeMu.Unlock()
	wg.Wait()
	if n := e.group.commits.Load() - before; n != 2 {
		t.Errorf("4 operations, 3 of them queued together, took %d commits, want 2", n)
	}
	for i, name := range names {
		want := error(nil)
		if name == "taken" {
			want = meta.ErrExists
		}
		if !errors.Is(errs[i], want) || (errs[i] != nil) != (want != nil) {
			t.Errorf("mkdir %s: %v, want %v", name, errs[i], want)
		}
	}
	e.Close()
	e, err = Open("sqlite3://" + path)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Load(ctx); err != nil {
		t.Fatal(err)
	}
	root, err := e.GetAttr(ctx, meta.RootIno)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"taken", "a", "b", "c"} {
		if _, _, err := e.Lookup(ctx, meta.RootIno, name); err != nil {
			t.Errorf("after reopening, %s: %v", name, err)
		}
	}
	if root.Nlink != 2+4 {
		t.Errorf("root has %d links, want %d", root.Nlink, 2+4)
	}
}

// TestGroupCommitRollsBackOneFailure: an operation of a group that fails
// with its errno after it changed rows leaves none of its changes, and
// the next operation of its group commits.
func TestGroupCommitRollsBackOneFailure(t *testing.T) {
	ctx := context.Background()
	e := openSQLite(t)
	if err := e.Init(ctx, testFormat(), false); err != nil {
		t.Fatal(err)
	}
	first, err := e.NextInodes(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	ops := []func() error{
		func() error {
			_, err := e.Mknod(ctx, meta.RootCred, meta.RootIno, "x", first, meta.TypeFile, 0644, 0, "")
			return err
		},
		func() error {
			return e.txn(ctx, func(c *conn) error {
				if _, err := c.exec("UPDATE cairn_node SET mode = 0 WHERE ino = ?", int64(meta.RootIno)); err != nil {
					return err
				}
				return meta.ErrNotPermitted
			})
		},
		func() error {
			_, err := e.Mknod(ctx, meta.RootCred, meta.RootIno, "y", first+1, meta.TypeFile, 0644, 0, "")
			return err
		},
	}
	e.writeMu.Lock()
	errs := make([]error, len(ops))
	var wg sync.WaitGroup
	for i, op := range ops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = op()
		}()
		queued(e, i)
	}
	e.writeMu.Unlock()
	wg.Wait()
	if errs[0] != nil || errs[2] != nil || !errors.Is(errs[1], meta.ErrNotPermitted) {
		t.Fatalf("results %v, want nil, EPERM, nil", errs)
	}
	root, err := e.GetAttr(ctx, meta.RootIno)
	if err != nil {
		t.Fatal(err)
	}
	if root.Mode == 0 {
		t.Errorf("the failed operation's change is in the database: root mode %o", root.Mode)
	}
	if _, _, err := e.Lookup(ctx, meta.RootIno, "y"); err != nil {
		t.Errorf("the operation after the failed one in its group: %v", err)
	}
}
