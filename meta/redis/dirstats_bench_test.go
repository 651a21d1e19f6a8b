package redis

import (
	"testing"

	"cairn/internal/testenv"
	"cairn/meta"
	"cairn/meta/metatest"
)

// BenchmarkDirStats: create, write and unlink with and without directory
// statistics (metatest.BenchDirStats), appendfsync always.
func BenchmarkDirStats(b *testing.B) {
	s := testenv.Redis(b, "--appendfsync", "always")
	db := 0
	metatest.BenchDirStats(b, func(b *testing.B) meta.Engine {
		db++
		return openURL(b, s.URL(db%16))
	})
}
