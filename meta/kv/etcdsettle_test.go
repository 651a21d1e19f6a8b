package kv

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"cairn/internal/testenv"
	"cairn/meta"
)

// Creates run one after another while every member of the cluster is
// frozen for longer than a commit waits for its answer: the commit in
// flight loses its answer and is settled once the cluster is back
// (etcdsettle.go). Every create succeeds, and the root holds exactly the
// files acknowledged. Without the settlement the create in flight fails
// (its outcome unknown) although etcd may carry it out.
func TestEtcdLostCommitAnswer(t *testing.T) {
	cluster := testenv.Etcd(t)
	e, err := OpenEtcdURL(cluster.URL("lost"))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	if err := e.Init(ctx, meta.Format{Name: "lost"}, false); err != nil {
		t.Fatal(err)
	}
	store := e.store.(*EtcdStore)
	store.commitTimeout = 300 * time.Millisecond

	c := &creator{e: e}
	for round := 1; round <= 3; round++ {
		stop := make(chan struct{})
		done := make(chan error)
		go func() {
			for {
				select {
				case <-stop:
					close(done)
					return
				default:
				}
				if err := c.step(ctx); err != nil {
					done <- err
					return
				}
			}
		}()
		time.Sleep(200 * time.Millisecond)
		cluster.Freeze()
		time.Sleep(1500 * time.Millisecond)
		cluster.Thaw()
		time.Sleep(200 * time.Millisecond)
		close(stop)
		if err := <-done; err != nil {
			t.Fatalf("round %d: create after %d acknowledged: %v", round, c.count(), err)
		}
	}
	applied, notApplied, unknown := store.settled[outcomeApplied].Load(), store.settled[outcomeNotApplied].Load(), store.settled[outcomeUnknown].Load()
	t.Logf("%d creates; lost answers settled: %d applied, %d not applied, %d unknown", c.count(), applied, notApplied, unknown)
	if applied+notApplied == 0 {
		t.Errorf("no commit lost its answer in three freezes: was the cluster frozen?")
	}
	if unknown > 0 {
		t.Errorf("%d lost answers left unknown", unknown)
	}

	var listed []string
	ents, err := e.Readdir(ctx, meta.RootIno, "", 0, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, en := range ents {
		listed = append(listed, en.Name)
	}
	slices.Sort(listed)
	acked := slices.Sorted(slices.Values(c.acked))
	if !slices.Equal(listed, acked) {
		t.Errorf("the root lists %d names, %d creates were acknowledged", len(listed), len(acked))
	}

	// A create sent again after its first commit took effect (what the
	// fence cannot rule out: a request a member proposes after it) finds
	// its own entry, which has its inode number: done, not EEXIST. The
	// same name with another number is EEXIST.
	ino, err := e.NextInodes(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	first, err := e.Mknod(ctx, meta.RootCred, meta.RootIno, "again", ino, meta.TypeFile, 0o640, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	again, err := e.Mknod(ctx, meta.RootCred, meta.RootIno, "again", ino, meta.TypeFile, 0o640, 0, "")
	if err != nil || again != first {
		t.Errorf("the same create again: %+v, %v; want %+v", again, err, first)
	}
	if _, err := e.Mknod(ctx, meta.RootCred, meta.RootIno, "again", ino+1, meta.TypeFile, 0o640, 0, ""); !errors.Is(err, meta.ErrExists) {
		t.Errorf("a create of the name with another inode number: %v, want EEXIST", err)
	}
}
