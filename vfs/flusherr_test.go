package vfs

import (
	"context"
	"errors"
	"sync"
	"syscall"
	"testing"
	"time"

	"cairn/meta"
)

// gatedWrites is an engine whose slice commits wait for the gate and then
// fail with EIO.
type gatedWrites struct {
	meta.Engine
	gate chan struct{}
}

func (g *gatedWrites) Write(ctx context.Context, ino meta.Ino, idx uint32, s meta.Slice, mtime int64) (meta.Attr, int, error) {
	<-g.gate
	return meta.Attr{}, 0, meta.ErrIO
}

// TestFailedCommitReachesEveryFlush fails a commit that an fsync and a
// flush of the same handle (a descriptor a child process inherited and
// closes at exec) both wait for: both must report it, so that the writer's
// fsync never says that data which is gone is durable. The flush after
// them has nothing left to report.
func TestFailedCommitReachesEveryFlush(t *testing.T) {
	g := &gatedWrites{gate: make(chan struct{})}
	v := newTestVFSOn(t, func(e meta.Engine) meta.Engine { g.Engine = e; return g }, nil, 8<<20, Config{})
	fh, _ := create(t, v, "f")
	if _, err := v.Write(ctx, fh, make([]byte, 1000), 0); err != nil {
		t.Fatal(err)
	}
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, call := range []func() error{
		func() error { return v.Fsync(ctx, fh) },
		func() error { return v.Flush(ctx, fh, 7) },
	} {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = call() }()
	}
	time.Sleep(100 * time.Millisecond) // both are waiting for the commit
	close(g.gate)
	wg.Wait()
	for i, what := range []string{"fsync", "flush of the inherited descriptor"} {
		if !errors.Is(errs[i], syscall.EIO) {
			t.Errorf("%s while the commit failed: %v, want EIO", what, errs[i])
		}
	}
	if err := v.Flush(ctx, fh, 0); err != nil {
		t.Errorf("flush after the failure was reported: %v", err)
	}
	if err := v.Release(ctx, fh, 0); err != nil {
		t.Errorf("release: %v", err)
	}
}
