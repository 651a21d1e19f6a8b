package redis

import (
	"testing"

	"cairn/meta"
	"cairn/meta/metatest"
)

func TestConformance(t *testing.T) {
	s := server(t)
	metatest.Run(t, func(t *testing.T) meta.Engine { return fresh(t, s, 0) })
}

// TestConcurrency races 8 goroutines on each of two clients (two
// connection pools, as two machines) in one directory.
func TestConcurrency(t *testing.T) {
	s := server(t)
	metatest.RunConcurrency(t,
		func(t *testing.T) meta.Engine { return fresh(t, s, 0) },
		func(t *testing.T, e meta.Engine) meta.Engine { return openURL(t, e.(*Engine).url) })
}
