package kv

import (
	"testing"

	"cairn/meta"
	"cairn/meta/metatest"
)

func TestMemConformance(t *testing.T) {
	metatest.Run(t, func(t *testing.T) meta.Engine {
		e := OpenMem()
		t.Cleanup(func() { e.Close() })
		return e
	})
}
