package kv

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"cairn/internal/testenv"
	"cairn/meta"
)

// creator makes files one after another in the root and remembers those
// whose creation was acknowledged.
type creator struct {
	e      *Engine
	mu     sync.Mutex
	acked  []string
	failed int
	n      int
}

func (c *creator) step(ctx context.Context) error {
	c.n++
	name := fmt.Sprintf("f%05d", c.n)
	ino, err := c.e.NextInodes(ctx, 1)
	if err == nil {
		_, err = c.e.Mknod(ctx, meta.RootCred, meta.RootIno, name, ino, meta.TypeFile, 0644, 0, "")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.failed++
		return err
	}
	c.acked = append(c.acked, name)
	return nil
}

func (c *creator) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.acked)
}

// One member of three dies in the middle of a workload: operations go on;
// it comes back and catches up; nothing acknowledged is lost. Two members
// dead: operations fail with a clear error in bounded time.
func TestEtcdMemberFailure(t *testing.T) {
	cluster := testenv.Etcd(t)
	e, err := OpenEtcdURL(cluster.URL("fault"))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	if err := e.Init(ctx, meta.Format{Name: "fault"}, false); err != nil {
		t.Fatal(err)
	}
	c := &creator{e: e}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				c.step(ctx)
			}
		}
	}()
	waitFor := func(n int) {
		deadline := time.Now().Add(30 * time.Second)
		for c.count() < n {
			if time.Now().After(deadline) {
				t.Fatalf("workload stalled at %d acknowledged creates (%d failed)", c.count(), c.failed)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitFor(50)
	cluster.Kill(0)
	before := c.count()
	waitFor(before + 100) // the workload goes on with two members
	cluster.Restart(0)
	waitFor(c.count() + 50)
	close(stop)
	<-done
	t.Logf("%d creates acknowledged, %d failed around the failure", len(c.acked), c.failed)

	// Every acknowledged file is there, read through a client that talks
	// to the member that was down only.
	only0, err := OpenEtcdURL(fmt.Sprintf("etcd://%s/fault", cluster.Endpoints()[0]))
	if err != nil {
		t.Fatal(err)
	}
	defer only0.Close()
	for _, name := range c.acked {
		if _, _, err := only0.Lookup(ctx, meta.RootIno, name); err != nil {
			t.Fatalf("acknowledged file %s lost: %v", name, err)
		}
	}

	// Quorum lost: a clear error within bounded time, not a hang. A
	// commit whose answer is lost waits for the cluster to settle it
	// (etcdsettle.go) until the caller's deadline, which a mount sets at
	// its --io-timeout: here 10 s.
	cluster.Kill(1)
	cluster.Kill(2)
	start := time.Now()
	bounded, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err = e.Mknod(bounded, meta.RootCred, meta.RootIno, "lost", 1<<40, meta.TypeFile, 0644, 0, "")
	took := time.Since(start)
	if down, _ := meta.Unavailable(err); !down || !strings.Contains(err.Error(), "quorum lost") {
		t.Fatalf("create without quorum: %v, want the cluster unavailable, naming a lost quorum", err)
	}
	if took > 20*time.Second {
		t.Errorf("create without quorum took %v to fail", took)
	}
	t.Logf("without quorum after %v: %v", took.Round(time.Millisecond), err)
	if errors.Is(err, meta.ErrConflict) {
		t.Errorf("quorum loss reported as a conflict")
	}
}
