package sql

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"cairn/meta"
	"cairn/meta/metatest"
)

// TestPostgresGuardedCallsUnderChmod races creates, renames and unlinks by a
// non-owner, whose permissions the server-side routines check under the
// directory's row lock, against chmods of their directory that grant and
// revoke them. Each operation must succeed or fail with EACCES, and the
// counters must be exact afterwards.
func TestPostgresGuardedCallsUnderChmod(t *testing.T) {
	p := startPostgres(t)
	raceUnderChmod(t, p.engine(t))
}

// raceUnderChmod runs TestPostgresGuardedCallsUnderChmod's race on e,
// a fresh engine.
func raceUnderChmod(t *testing.T, e *Engine) {
	ctx := context.Background()
	if err := e.Init(ctx, testFormat(), false); err != nil {
		t.Fatal(err)
	}
	d, _ := e.NextInodes(ctx, 1)
	if _, err := e.Mknod(ctx, meta.RootCred, meta.RootIno, "d", d, meta.TypeDirectory, 0777, 0, ""); err != nil {
		t.Fatal(err)
	}
	alice := meta.Cred{Uid: 1001, Gid: 1001}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			mode := uint16(0777)
			if i%2 == 1 {
				mode = 0755
			}
			if _, err := e.SetAttr(ctx, meta.RootCred, d, meta.SetAttr{Mode: &mode}); err != nil {
				t.Errorf("chmod: %v", err)
				return
			}
		}
	}()
	var work sync.WaitGroup
	for w := 0; w < 4; w++ {
		work.Add(1)
		go func() {
			defer work.Done()
			for i := 0; i < 100; i++ {
				name := fmt.Sprintf("w%d-%d", w, i%5)
				ino, err := e.NextInodes(ctx, 1)
				if err != nil {
					t.Error(err)
					return
				}
				_, err = e.Mknod(ctx, alice, d, name, ino, meta.TypeFile, 0644, 0, "")
				if err != nil && !errors.Is(err, meta.ErrAccess) && !errors.Is(err, meta.ErrExists) {
					t.Errorf("create %s: %v", name, err)
				}
				_, _, replaced, err := e.Rename(ctx, alice, d, name, d, name+"r", 0, 1)
				if err == nil {
					name += "r"
					if replaced != 0 {
						err = e.ReleaseOrphan(ctx, 1, replaced)
					}
				}
				if err != nil && !errors.Is(err, meta.ErrAccess) && !errors.Is(err, meta.ErrNotFound) {
					t.Errorf("rename %s: %v", name, err)
				}
				gone, a, err := e.Unlink(ctx, alice, d, name, 1)
				if err == nil && a.Nlink == 0 {
					err = e.ReleaseOrphan(ctx, 1, gone)
				}
				if err != nil && !errors.Is(err, meta.ErrAccess) && !errors.Is(err, meta.ErrNotFound) {
					t.Errorf("unlink %s: %v", name, err)
				}
			}
		}()
	}
	work.Wait()
	close(stop)
	wg.Wait()
	t.Logf("retries (conflicts and stale checks): %d", e.Stats().Retries)
	if err := metatest.Verify(ctx, e); err != nil {
		t.Error(err)
	}
}
