package redis

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cairn/meta"
	"cairn/meta/metatest"
)

// TestServerRestart kills redis-server (SIGKILL) while four goroutines
// create and write files, and starts it again: operations meanwhile fail
// with an error naming the server, succeed again once it is back, nothing
// acknowledged is lost, and every counter is exact afterwards.
func TestServerRestart(t *testing.T) {
	s := server(t)
	e := fresh(t, s, 0)
	ctx := context.Background()
	if err := e.Init(ctx, meta.Format{Name: "fault", Version: meta.FormatVersion}, false); err != nil {
		t.Fatal(err)
	}
	var (
		mu       sync.Mutex
		acked    []string
		failures atomic.Int64
		phase    atomic.Int32 // 0 before the kill, 1 down, 2 back
		lateFail atomic.Int64
	)
	step := func(w, i int) {
		name := fmt.Sprintf("w%d-%04d", w, i)
		ino, err := e.NextInodes(ctx, 1)
		if err == nil {
			_, err = e.Mknod(ctx, meta.RootCred, meta.RootIno, name, ino, meta.TypeFile, 0644, 0, "")
		}
		if err == nil {
			_, _, err = e.Write(ctx, ino, 0, meta.Slice{ID: uint64(w*10000 + i + 1), Size: 100, Len: 100}, time.Now().UnixNano())
		}
		if err != nil {
			failures.Add(1)
			if phase.Load() == 2 {
				lateFail.Add(1)
			}
			if !strings.Contains(err.Error(), "127.0.0.1") {
				t.Errorf("op failed without naming the server: %v", err)
			}
			return
		}
		mu.Lock()
		acked = append(acked, name)
		mu.Unlock()
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				step(w, i)
				if phase.Load() == 1 {
					time.Sleep(10 * time.Millisecond)
				}
			}
		}()
	}
	time.Sleep(300 * time.Millisecond)
	s.Stop()
	phase.Store(1)
	time.Sleep(300 * time.Millisecond)
	downFailures := failures.Load()
	s.Start()
	// go-redis stops dialling for a moment after many failed dials; the
	// engine must come back by itself within seconds.
	back := time.Now()
	for {
		if _, err := e.GetAttr(ctx, meta.RootIno); err == nil {
			break
		}
		if time.Since(back) > 10*time.Second {
			t.Fatalf("the engine did not reach the restarted server within 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("engine back %v after the server", time.Since(back).Round(time.Millisecond))
	phase.Store(2)
	time.Sleep(500 * time.Millisecond)
	close(stop)
	wg.Wait()
	t.Logf("%d operations acknowledged, %d failed (%d after the restart)", len(acked), failures.Load(), lateFail.Load())
	if downFailures == 0 {
		t.Errorf("no operation failed while the server was down")
	}
	// Each worker may meet one pooled connection that died with the server.
	if n := lateFail.Load(); n > 8 {
		t.Errorf("%d operations failed after the server came back", n)
	}
	if e.Stats().Retries == 0 {
		t.Errorf("no script was re-sent after the restart emptied the server's script cache")
	}
	for _, name := range acked {
		if _, a, err := e.Lookup(ctx, meta.RootIno, name); err != nil || a.Length != 100 {
			t.Errorf("acknowledged file %s after the restart: length %d, %v", name, a.Length, err)
		}
	}
	if err := metatest.Verify(ctx, e); err != nil {
		t.Errorf("tree after the restart: %v", err)
	}
}
