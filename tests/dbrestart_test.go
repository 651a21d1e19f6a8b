package tests

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"cairn/internal/testenv"
)

// TestDatabaseRestartUnderMount restarts the metadata server (PostgreSQL,
// then MariaDB) while an application creates, writes, fsyncs and closes
// files through a mount. Calls in flight may fail with EIO (their commit's
// outcome is unknown), nothing else; the mount carries on once the server
// is back, and every file whose close succeeded reads back exactly, through
// this mount and a fresh one.
func TestDatabaseRestartUnderMount(t *testing.T) {
	if e := engineName(); e != "sqlite3" {
		t.Skipf("starts its own PostgreSQL and MariaDB; runs once, in the default suite (not under CAIRN_TEST_ENGINE=%s)", e)
	}
	needMount(t)
	t.Run("PostgreSQL", func(t *testing.T) {
		srv := testenv.Postgres(t)
		restartUnderMount(t, srv.URL("postgres"), srv.Stop, srv.Start)
	})
	t.Run("MariaDB", func(t *testing.T) {
		srv := testenv.MariaDB(t)
		srv.SQL(t, "CREATE DATABASE cairn")
		restartUnderMount(t, srv.URL("cairn"), srv.Stop, srv.Start)
	})
}

func restartUnderMount(t *testing.T, metaURL string, stop, start func()) {
	v := &volume{name: "restart", meta: metaURL}
	cairnOK(t, append([]string{"format", v.meta, v.name}, v.storageArgs(t)...)...)
	v.dir = filepath.Join(tempDir(t), "mnt")
	must(t, os.Mkdir(v.dir, 0o755), "mkdir mount point")
	v.mount(t)

	const size = 64 << 10
	var (
		mu      sync.Mutex
		acked   []int
		failed  []error
		stopped atomic.Bool
		wg      sync.WaitGroup
	)
	writeOne := func(i int) error {
		f, err := os.OpenFile(v.path(fmt.Sprintf("f%d", i)), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err != nil {
			return fmt.Errorf("create f%d: %w", i, err)
		}
		_, err = f.Write(pattern(uint64(i), size))
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("write f%d: %w", i, err)
		}
		return nil
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !stopped.Load() && i < 100000; i++ {
			err := writeOne(i)
			mu.Lock()
			if err != nil {
				failed = append(failed, err)
			} else {
				acked = append(acked, i)
			}
			mu.Unlock()
		}
	}()
	time.Sleep(time.Second)
	stop()
	time.Sleep(2 * time.Second)
	start()
	time.Sleep(2 * time.Second)
	stopped.Store(true)
	wg.Wait()

	t.Logf("%d files written and closed, %d calls failed across the restart", len(acked), len(failed))
	for _, err := range failed {
		if !errors.Is(err, syscall.EIO) {
			t.Errorf("failed with something other than EIO: %v", err)
		}
	}
	if len(acked) == 0 {
		t.Fatal("no file was written at all")
	}
	check := func(when string) {
		t.Helper()
		for _, i := range acked {
			got, err := os.ReadFile(v.path(fmt.Sprintf("f%d", i)))
			if err != nil || !bytes.Equal(got, pattern(uint64(i), size)) {
				t.Fatalf("%s: f%d, acknowledged, reads back %d bytes, %v", when, i, len(got), err)
			}
		}
	}
	check("through the mount that lived through the restart")
	must(t, writeOne(1_000_000), "a file written after the restart")
	v.remount(t)
	check("through a fresh mount")
}
