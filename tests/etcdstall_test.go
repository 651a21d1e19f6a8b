package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"cairn/internal/testenv"
)

// etcdStalls are how long TestEtcdStallUnderMount keeps the cluster
// frozen: longer than a read's timeout (3 s, which a commit had too) and
// shorter than the time after which a member gives up on a proposal
// itself (5 s plus two election timeouts: 6 s for the test cluster), so
// that the commit in flight is answered once the cluster goes on; then
// longer than a commit waits for its answer (10 s), so that it is
// settled (meta/kv/etcdsettle.go).
var etcdStalls = []time.Duration{4500 * time.Millisecond, 11 * time.Second}

// TestEtcdStallUnderMount freezes every member of an etcd cluster, as a
// disk that stalls on fsync holds them, while an application creates
// files through a mount one after another: the create in flight waits
// and succeeds, as on a slow local disk, and every file is there once.
// A commit used to be cut after 3 s: the application got EIO for a create
// that etcd then carried out; one whose answer is lost is now settled.
func TestEtcdStallUnderMount(t *testing.T) {
	if e := engineName(); e != "sqlite3" {
		t.Skipf("starts its own etcd cluster; runs once, in the default suite (not under CAIRN_TEST_ENGINE=%s)", e)
	}
	needMount(t)
	cluster := testenv.Etcd(t)
	v := localVolume(t, cluster.URL("cairn"))
	v.mount(t)
	dir := v.path("d")
	must(t, os.Mkdir(dir, 0o755), "mkdir d")

	var made atomic.Int64
	stop := make(chan struct{})
	failed := make(chan error, 1)
	go func() {
		defer close(failed)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("f%d", i)), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
			if err == nil {
				err = f.Close()
			}
			if err != nil {
				failed <- fmt.Errorf("create f%d: %v", i, err)
				return
			}
			made.Add(1)
		}
	}()
	waitMade := func(n int64) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for made.Load() < n {
			select {
			case err := <-failed:
				t.Fatalf("%v (after %d creates)", err, made.Load())
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d creates after 30 s, waiting for %d", made.Load(), n)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitMade(50)
	for _, stall := range etcdStalls {
		cluster.Freeze()
		frozen := made.Load()
		time.Sleep(stall)
		during := made.Load() - frozen
		cluster.Thaw()
		waitMade(made.Load() + 50)
		// The loop did wait: at most the create in flight when the
		// cluster froze could have ended (answered before the freeze
		// reached it).
		if during > 1 {
			t.Errorf("%d creates ended while the cluster was frozen for %v: was it?", during, stall)
		}
	}
	close(stop)
	if err := <-failed; err != nil {
		t.Fatalf("%v (after %d creates; the cluster was frozen for %v)", err, made.Load(), etcdStalls)
	}
	names, err := os.ReadDir(dir)
	must(t, err, "list d")
	if int64(len(names)) != made.Load() {
		t.Errorf("d holds %d files after %d acknowledged creates", len(names), made.Load())
	}
}
