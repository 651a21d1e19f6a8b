package kv

import (
	"testing"

	"cairn/internal/testenv"
	"cairn/meta"
	"cairn/meta/metatest"
)

// unclosed lends a store to a second engine of the same process, which
// must not close it under the first.
type unclosed struct{ Store }

func (unclosed) Close() error { return nil }

// sameStore opens a second client of e's store in this process: the way
// two clients share an embedded store (mem, Badger).
func sameStore(t *testing.T, e meta.Engine) meta.Engine {
	k := e.(*Engine)
	return New(unclosed{k.store}, string(k.k.prefix[:max(len(k.k.prefix)-1, 0)]))
}

func TestMemConcurrency(t *testing.T) {
	metatest.RunConcurrency(t, func(t *testing.T) meta.Engine {
		e := OpenMem()
		t.Cleanup(func() { e.Close() })
		return e
	}, sameStore)
}

func TestBadgerConcurrency(t *testing.T) {
	metatest.RunConcurrency(t, func(t *testing.T) meta.Engine { return openBadger(t, t.TempDir()) }, sameStore)
}

// On etcd the second client is a connection of its own, as a second
// machine would open.
func TestEtcdConcurrency(t *testing.T) {
	c := testenv.Etcd(t)
	metatest.RunConcurrency(t, etcdOpener(c), func(t *testing.T, e meta.Engine) meta.Engine {
		prefix := e.(*Engine).k.prefix
		second, err := OpenEtcdURL(c.URL(string(prefix[:len(prefix)-1])))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { second.Close() })
		return second
	})
}
