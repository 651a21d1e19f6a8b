package kv

import (
	"fmt"
	"sync/atomic"
	"testing"

	"cairn/internal/testenv"
	"cairn/meta"
	"cairn/meta/metatest"
)

// etcdOpener opens a fresh volume (a new prefix) on cluster c per call.
func etcdOpener(c *testenv.EtcdCluster) func(t *testing.T) meta.Engine {
	var n atomic.Int64
	return func(t *testing.T) meta.Engine {
		e, err := OpenEtcdURL(c.URL(fmt.Sprintf("vol%d", n.Add(1))))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
}

func TestEtcdConformance(t *testing.T) {
	c := testenv.Etcd(t)
	metatest.Run(t, etcdOpener(c))
}
