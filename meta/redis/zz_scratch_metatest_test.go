package redis

import (
	"testing"

	"cairn/meta"
	"cairn/meta/metatest"
)

func TestScratchRedisConformance(t *testing.T) {
	s := server(t)
	n := 0
	metatest.Run(t, func(t *testing.T) meta.Engine {
		n++
		return fresh(t, s, n%16)
	})
}

func TestScratchRedisConcurrency(t *testing.T) {
	s := server(t)
	metatest.RunConcurrency(t, func(t *testing.T) meta.Engine {
		return fresh(t, s, 3)
	}, func(t *testing.T, e meta.Engine) meta.Engine {
		return openURL(t, s.URL(3))
	})
}
