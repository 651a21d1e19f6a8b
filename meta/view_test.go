package meta

import (
	"math/rand"
	"testing"
)

// TestViewAgainstModel lays random records over a byte map of the chunk and
// checks that View describes exactly what the map says each byte reads as.
func TestViewAgainstModel(t *testing.T) {
	seed := int64(rand.Uint32())
	rng := rand.New(rand.NewSource(seed))
	const span = 200
	for round := 0; round < 500; round++ {
		var list []Slice
		// model[i] = (slice id, offset in slice) visible at byte i; id 0 = zero.
		type src struct {
			id  uint64
			off uint32
		}
		model := make([]src, span)
		for n := rng.Intn(8); n >= 0; n-- {
			pos := uint32(rng.Intn(span))
			l := uint32(rng.Intn(span - int(pos) + 1))
			s := Slice{Pos: pos, ID: uint64(rng.Intn(5)), Off: uint32(rng.Intn(10)), Len: l}
			s.Size = s.Off + s.Len
			list = append(list, s)
			for k := uint32(0); k < l; k++ {
				model[pos+k] = src{s.ID, s.Off + k}
			}
		}
		got := make([]src, span)
		var last uint32
		for _, v := range View(list) {
			if v.Pos < last {
				t.Fatalf("seed %d: records overlap or are unsorted: %+v", seed, View(list))
			}
			last = v.Pos + v.Len
			for k := uint32(0); k < v.Len; k++ {
				got[v.Pos+k] = src{v.ID, v.Off + k}
			}
		}
		for i := range model {
			if model[i].id == 0 && got[i].id == 0 {
				continue
			}
			if model[i] != got[i] {
				t.Fatalf("seed %d: byte %d reads %+v, want %+v (list %+v)", seed, i, got[i], model[i], list)
			}
		}
	}
}
