package kv

import (
	"testing"

	"github.com/tikv/client-go/v2/testutils"
	"github.com/tikv/client-go/v2/tikv"

	"cairn/meta"
	"cairn/meta/metatest"
)

// No TiKV server can be installed here: the TiKV tests run against
// client-go's own in-process test cluster (mocktikv with a mock PD), which
// speaks the same transaction protocol to the same client code. second
// opens another client store on the same cluster, as a second machine
// would.
func mockTiKV(t *testing.T) (first *tikv.KVStore, second func() *tikv.KVStore) {
	t.Helper()
	quietTiKVLogs()
	client, cluster, pdClient, err := testutils.NewMockTiKV("", nil)
	if err != nil {
		t.Fatalf("start client-go's test cluster: %v", err)
	}
	testutils.BootstrapWithSingleStore(cluster)
	open := func() *tikv.KVStore {
		store, err := tikv.NewTestTiKVStore(client, pdClient, nil, nil, 0)
		if err != nil {
			t.Fatalf("open client-go's test cluster: %v", err)
		}
		return store
	}
	return open(), open
}

func TestTiKVConformance(t *testing.T) {
	metatest.Run(t, func(t *testing.T) meta.Engine {
		store, _ := mockTiKV(t)
		e := New(NewTiKVStore(store), "vol")
		t.Cleanup(func() { e.Close() })
		return e
	})
}

func TestTiKVConcurrency(t *testing.T) {
	var second func() *tikv.KVStore
	metatest.RunConcurrency(t, func(t *testing.T) meta.Engine {
		var store *tikv.KVStore
		store, second = mockTiKV(t)
		e := New(NewTiKVStore(store), "vol")
		t.Cleanup(func() { e.Close() })
		return e
	}, func(t *testing.T, _ meta.Engine) meta.Engine {
		e := New(unclosed{NewTiKVStore(second())}, "vol")
		return e
	})
}
