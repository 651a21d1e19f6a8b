package kv

import (
	"fmt"
	"testing"

	"cairn/internal/testenv"
	"cairn/meta"
	"cairn/meta/metatest"
)

// BenchmarkDirStats: create, write and unlink with and without directory
// statistics (metatest.BenchDirStats), on etcd (three members) and
// Badger.
func BenchmarkDirStats(b *testing.B) {
	b.Run("etcd", func(b *testing.B) {
		c := testenv.Etcd(b)
		n := 0
		metatest.BenchDirStats(b, func(b *testing.B) meta.Engine {
			n++
			e, err := OpenEtcdURL(c.URL(fmt.Sprintf("bench%d", n)))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { e.Close() })
			return e
		})
	})
	b.Run("badger", func(b *testing.B) {
		metatest.BenchDirStats(b, func(b *testing.B) meta.Engine {
			s, err := OpenBadger(b.TempDir(), BadgerOptions{})
			if err != nil {
				b.Fatal(err)
			}
			e := New(s, "")
			b.Cleanup(func() { e.Close() })
			return e
		})
	})
}
