package sql

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"cairn/internal/testenv"
	"cairn/meta"
	"cairn/meta/metatest"
)

// TestMariaDBReadsAfterLock races operations whose lock and reads go in
// one multi-statement round trip on MySQL (readSeq): each read must see
// what the previous holder of the lock committed, so of eight clients
// creating, renaming onto or unlinking one name, exactly one wins each
// round, and permissions checked against a directory being chmodded hold.
func TestMariaDBReadsAfterLock(t *testing.T) {
	m := &mariaEnv{srv: testenv.MariaDB(t)}
	t.Run("UnderChmod", func(t *testing.T) { raceUnderChmod(t, m.engine(t)) })
	t.Run("OneName", func(t *testing.T) {
		ctx := context.Background()
		e1 := m.engine(t)
		if err := e1.Init(ctx, testFormat(), false); err != nil {
			t.Fatal(err)
		}
		e2 := reopen(t, e1).(*Engine)
		if _, err := e2.Load(ctx); err != nil {
			t.Fatal(err)
		}
		const clients = 8
		round := func(op func(e *Engine, w int) error, wantLoser error) int {
			var wg sync.WaitGroup
			var mu sync.Mutex
			wins := 0
			for w := 0; w < clients; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					err := op([]*Engine{e1, e2}[w%2], w)
					mu.Lock()
					defer mu.Unlock()
					switch {
					case err == nil:
						wins++
					case !errors.Is(err, wantLoser):
						t.Errorf("client %d: %v, want success or %v", w, err, wantLoser)
					}
				}()
			}
			wg.Wait()
			return wins
		}
		for r := 0; r < 10; r++ {
			name := fmt.Sprintf("n%d", r)
			wins := round(func(e *Engine, w int) error {
				ino, err := e.NextInodes(ctx, 1)
				if err == nil {
					_, err = e.Mknod(ctx, meta.RootCred, meta.RootIno, name, ino, meta.TypeFile, 0644, 0, "")
				}
				return err
			}, meta.ErrExists)
			if wins != 1 {
				t.Errorf("round %d: %d clients created %s", r, wins, name)
			}
			wins = round(func(e *Engine, w int) error {
				gone, a, err := e.Unlink(ctx, meta.RootCred, meta.RootIno, name, 1)
				if err == nil && a.Nlink == 0 {
					err = e.ReleaseOrphan(ctx, 1, gone)
				}
				return err
			}, meta.ErrNotFound)
			if wins != 1 {
				t.Errorf("round %d: %d clients unlinked %s", r, wins, name)
			}
		}
		// rmdir against creates inside: a directory removed must have
		// been empty; a create must not land in a removed directory.
		for r := 0; r < 10; r++ {
			name := fmt.Sprintf("d%d", r)
			dir, _ := e1.NextInodes(ctx, 1)
			if _, err := e1.Mknod(ctx, meta.RootCred, meta.RootIno, name, dir, meta.TypeDirectory, 0755, 0, ""); err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			for w := 0; w < clients; w++ {
				e := []*Engine{e1, e2}[w%2]
				wg.Add(1)
				go func() {
					defer wg.Done()
					if w%2 == 0 {
						err := e.Rmdir(ctx, meta.RootCred, meta.RootIno, name)
						if err != nil && !errors.Is(err, meta.ErrNotEmpty) && !errors.Is(err, meta.ErrNotFound) {
							t.Errorf("rmdir %s: %v", name, err)
						}
						return
					}
					ino, err := e.NextInodes(ctx, 1)
					if err == nil {
						_, err = e.Mknod(ctx, meta.RootCred, dir, fmt.Sprint(w), ino, meta.TypeFile, 0644, 0, "")
					}
					if err != nil && !errors.Is(err, meta.ErrNotFound) {
						t.Errorf("create in %s: %v", name, err)
					}
				}()
			}
			wg.Wait()
		}
		if err := metatest.Verify(ctx, e1); err != nil {
			t.Error(err)
		}
	})
}

// TestMariaDBWriteWithoutProcedure opens a volume whose database lacks
// cairn_write (formatted by an earlier release): Write falls back to a
// transaction and gives the same result.
func TestMariaDBWriteWithoutProcedure(t *testing.T) {
	open, _ := mariadbOpener(t)
	e := open(t).(*Engine)
	ctx := context.Background()
	if err := e.Init(ctx, testFormat(), false); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.ExecContext(ctx, "DROP PROCEDURE cairn_write"); err != nil {
		t.Fatal(err)
	}
	ino, _ := e.NextInodes(ctx, 1)
	if _, err := e.Mknod(ctx, meta.RootCred, meta.RootIno, "f", ino, meta.TypeFile, 0644, 0, ""); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		a, n, err := e.Write(ctx, ino, 0, meta.Slice{ID: uint64(10 + i), Size: 100, Len: 100}, 1)
		if err != nil || n != i+1 || a.Length != 100 {
			t.Fatalf("write %d without the procedure: length %d, %d slices, %v", i, a.Length, n, err)
		}
	}
	if err := metatest.Verify(ctx, e); err != nil {
		t.Error(err)
	}
}
