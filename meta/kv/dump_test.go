package kv

import (
	"testing"

	"cairn/internal/testenv"
	"cairn/meta"
	"cairn/meta/metatest"
)

func TestMemDump(t *testing.T) {
	metatest.RunDump(t, func(t *testing.T) meta.Engine {
		e := OpenMem()
		t.Cleanup(func() { e.Close() })
		return e
	})
}

func TestBadgerDump(t *testing.T) {
	metatest.RunDump(t, func(t *testing.T) meta.Engine { return openBadger(t, t.TempDir()) })
}

func TestEtcdDump(t *testing.T) {
	metatest.RunDump(t, etcdOpener(testenv.Etcd(t)))
}
