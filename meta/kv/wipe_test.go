package kv

import (
	"fmt"
	"testing"

	"cairn/internal/testenv"
)

// TestEtcdWipeMany checks that removing what a failed load wrote works
// when it is more than one etcd transaction can delete: each round scans
// a range (one compare) and reads as many keys as it deletes.
func TestEtcdWipeMany(t *testing.T) {
	e := etcdOpener(testenv.Etcd(t))(t).(*Engine)
	for round := range 3 {
		err := e.store.Txn(t.Context(), func(tx Tx) error {
			for i := range etcdMaxTxnOps {
				tx.Put(e.k.key(tagInode, []byte(fmt.Sprintf("%d-%03d", round, i))), []byte("v"))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := e.wipe(t.Context()); err != nil {
		t.Fatalf("wipe: %v", err)
	}
	b, end := e.k.volumeRange()
	err := e.store.Txn(t.Context(), func(tx Tx) error {
		kvs, err := tx.Scan(b, end, 0)
		if err == nil && len(kvs) > 0 {
			err = fmt.Errorf("%d keys left after wipe, first %q", len(kvs), kvs[0].Key)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
