package redis

import (
	"sync/atomic"
	"testing"

	"cairn/meta"
	"cairn/meta/metatest"
)

// TestDump runs the dump suite on one server, each engine on a database of
// its own (a dump and its load need two at once).
func TestDump(t *testing.T) {
	s := server(t)
	var next atomic.Int64
	metatest.RunDump(t, func(t *testing.T) meta.Engine { return fresh(t, s, int(next.Add(1)%16)) })
}
