package redis

import (
	"testing"

	"cairn/meta"
	"cairn/meta/metatest"
)

func TestFloorProbes(t *testing.T) {
	s := server(t)
	metatest.RunFloor(t, func(t *testing.T) meta.Engine { return fresh(t, s, 0) },
		func(t *testing.T, e meta.Engine) string {
			r := e.(*Engine)
			v, err := r.rdb.Get(t.Context(), r.prefix+":floor").Result()
			if err != nil {
				t.Fatalf("GET the scratch key: %v", err)
			}
			return v
		})
}
