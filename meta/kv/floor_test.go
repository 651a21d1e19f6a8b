package kv

import (
	"encoding/hex"
	"testing"

	"cairn/internal/testenv"
	"cairn/meta"
	"cairn/meta/metatest"
)

// scratchKey reads the floor probes' key in a transaction of the store,
// not through the probes.
func scratchKey(t *testing.T, e meta.Engine) string {
	k := e.(*Engine)
	var v []byte
	err := k.store.Txn(t.Context(), func(tx Tx) error {
		var err error
		v, err = tx.Get(k.k.key(tagFloor))
		return err
	})
	if err != nil {
		t.Fatalf("read the scratch key: %v", err)
	}
	return hex.EncodeToString(v)
}

func TestFloorProbes(t *testing.T) {
	t.Run("Badger", func(t *testing.T) {
		metatest.RunFloor(t, func(t *testing.T) meta.Engine { return openBadger(t, t.TempDir()) }, scratchKey)
	})
	t.Run("etcd", func(t *testing.T) {
		metatest.RunFloor(t, etcdOpener(testenv.Etcd(t)), scratchKey)
	})
}
