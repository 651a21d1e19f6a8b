package kv

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

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
	e := formattedEtcd(t, cluster, "lost")
	ctx := context.Background()
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

	// A create sent again after its first attempt took effect finds its
	// own entry, which has its inode number: done, not EEXIST. The same
	// name with another number is EEXIST.
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

// The verdicts themselves, on a real cluster, for a commit that puts the
// value another client's commit also puts (a counter's next value): the
// other client's identical change is not taken for this commit's.
func TestEtcdSettleVerdicts(t *testing.T) {
	e := formattedEtcd(t, testenv.Etcd(t), "verdicts")
	ctx := context.Background()
	s := e.store.(*EtcdStore)
	key := string(e.k.counter("verdicts"))
	// prepare reads key as a transaction does and puts "2" after it,
	// without sending the commit.
	prepare := func() *etcdTx {
		if _, err := s.cli.Put(ctx, key, "1"); err != nil {
			t.Fatal(err)
		}
		tx := s.newTx(ctx)
		if _, err := tx.Get([]byte(key)); err != nil {
			t.Fatal(err)
		}
		tx.Put([]byte(key), []byte("2"))
		return tx
	}
	// send commits tx with mark as commit does, and says whether its
	// compare held.
	send := func(tx *etcdTx, mark []byte) bool {
		resp, err := s.cli.Txn(ctx).
			If(clientv3.Compare(clientv3.ModRevision(key), "=", tx.reads[key])).
			Then(clientv3.OpPut(key, "2"), clientv3.OpPut(s.mark, string(mark))).Commit()
		if err != nil {
			t.Fatal(err)
		}
		return resp.Succeeded
	}

	tx, mark := prepare(), newMark()
	if !send(tx, mark) {
		t.Fatal("the commit's compare failed")
	}
	if got := tx.settle(mark); got != outcomeApplied {
		t.Errorf("a commit that took effect: verdict %d, want applied", got)
	}

	tx, mark = prepare(), newMark()
	if _, err := s.cli.Put(ctx, key, "2"); err != nil { // another client, the same value
		t.Fatal(err)
	}
	if got := tx.settle(mark); got != outcomeNotApplied {
		t.Errorf("another commit put the same value first: verdict %d, want not applied", got)
	}

	tx, mark = prepare(), newMark()
	if got := tx.settle(mark); got != outcomeNotApplied {
		t.Errorf("a commit not sent yet: verdict %d, want not applied", got)
	}
	if send(tx, mark) {
		t.Errorf("the commit, arriving after its settlement said it had not taken effect, took effect")
	}
	v, err := s.cli.Get(ctx, key)
	if err != nil || len(v.Kvs) != 1 || string(v.Kvs[0].Value) != "1" {
		t.Errorf("the key after the poison: %v, %v; want its value unchanged (1)", v, err)
	}
}

// Destroy leaves no key of the volume behind, the scratch key that every
// commit puts its mark into included.
func TestEtcdDestroyLeavesNoMark(t *testing.T) {
	e := formattedEtcd(t, testenv.Etcd(t), "nomark")
	ctx := context.Background()
	c := &creator{e: e}
	for range 150 { // more keys than one of Destroy's batches
		if err := c.step(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Destroy(ctx); err != nil {
		t.Fatal(err)
	}
	s := e.store.(*EtcdStore)
	resp, err := s.cli.Get(ctx, string(e.k.prefix), clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range resp.Kvs {
		t.Errorf("left after Destroy: %q", kv.Key)
	}
}

// formattedEtcd formats a volume named name on cluster, under the prefix
// name, and opens it.
func formattedEtcd(t *testing.T, cluster *testenv.EtcdCluster, name string) *Engine {
	t.Helper()
	e, err := OpenEtcdURL(cluster.URL(name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if err := e.Init(context.Background(), meta.Format{Name: name}, false); err != nil {
		t.Fatal(err)
	}
	return e
}
