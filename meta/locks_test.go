package meta

import (
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"testing"
)

const eof = math.MaxUint64

func rd(start, end uint64, pid uint32) Lock {
	return Lock{Type: LockRead, Start: start, End: end, Pid: pid}
}
func wr(start, end uint64, pid uint32) Lock {
	return Lock{Type: LockWrite, Start: start, End: end, Pid: pid}
}
func un(start, end uint64) Lock { return Lock{Type: LockUnlock, Start: start, End: end, Pid: 9} }

func TestApplyLock(t *testing.T) {
	cases := []struct {
		name   string
		ranges []Lock
		l      Lock
		want   []Lock
	}{
		{"first lock", nil, wr(10, 19, 1), []Lock{wr(10, 19, 1)}},
		{"unlock of nothing", nil, un(0, eof), []Lock{}},
		{"disjoint locks stay apart", []Lock{rd(0, 4, 1)}, rd(10, 19, 2), []Lock{rd(0, 4, 1), rd(10, 19, 2)}},
		{"one byte between keeps them apart", []Lock{rd(0, 4, 1)}, rd(6, 9, 2), []Lock{rd(0, 4, 1), rd(6, 9, 2)}},
		{"touching after merges", []Lock{rd(0, 4, 1)}, rd(5, 9, 2), []Lock{rd(0, 9, 1)}},
		{"touching before merges, older pid kept", []Lock{rd(5, 9, 1)}, rd(0, 4, 2), []Lock{rd(0, 9, 1)}},
		{"touching of another type stays apart", []Lock{rd(0, 4, 1)}, wr(5, 9, 2), []Lock{rd(0, 4, 1), wr(5, 9, 2)}},
		{"overlap of one type merges", []Lock{wr(0, 9, 1)}, wr(5, 14, 2), []Lock{wr(0, 14, 1)}},
		{"inside one of the same type changes nothing", []Lock{wr(0, 99, 1)}, wr(10, 19, 2), []Lock{wr(0, 99, 1)}},
		{"covering one of the same type", []Lock{rd(10, 19, 1)}, rd(0, 99, 2), []Lock{rd(0, 99, 1)}},
		{"bridging two of the same type", []Lock{rd(0, 4, 1), rd(10, 14, 3)}, rd(5, 9, 2), []Lock{rd(0, 14, 1)}},
		{"bridging keeps the lowest pid", []Lock{rd(0, 4, 7), rd(10, 14, 3)}, rd(3, 11, 2), []Lock{rd(0, 14, 7)}},
		{"write inside a read splits it", []Lock{rd(0, 99, 1)}, wr(10, 19, 2), []Lock{rd(0, 9, 1), wr(10, 19, 2), rd(20, 99, 1)}},
		{"read over the start of a write", []Lock{wr(10, 19, 1)}, rd(0, 14, 2), []Lock{rd(0, 14, 2), wr(15, 19, 1)}},
		{"read over the end of a write", []Lock{wr(10, 19, 1)}, rd(15, 30, 2), []Lock{wr(10, 14, 1), rd(15, 30, 2)}},
		{"write replaces a read exactly", []Lock{rd(10, 19, 1)}, wr(10, 19, 2), []Lock{wr(10, 19, 2)}},
		{"write over a read merges with a write beside it", []Lock{wr(0, 9, 1), rd(10, 19, 3)}, wr(10, 19, 2), []Lock{wr(0, 19, 1)}},
		{"downgrade the middle of a write between reads", []Lock{rd(0, 9, 1), wr(10, 19, 3), rd(20, 29, 4)}, rd(10, 19, 2), []Lock{rd(0, 29, 1)}},
		{"unlock the middle", []Lock{wr(0, 99, 1)}, un(10, 19), []Lock{wr(0, 9, 1), wr(20, 99, 1)}},
		{"unlock the start", []Lock{wr(0, 99, 1)}, un(0, 9), []Lock{wr(10, 99, 1)}},
		{"unlock the end", []Lock{wr(0, 99, 1)}, un(90, 200), []Lock{wr(0, 89, 1)}},
		{"unlock across several", []Lock{rd(0, 9, 1), wr(10, 19, 1), rd(30, 39, 1)}, un(5, 34), []Lock{rd(0, 4, 1), rd(35, 39, 1)}},
		{"unlock to the end of the file", []Lock{rd(0, 9, 1), wr(20, eof, 1)}, un(5, eof), []Lock{rd(0, 4, 1)}},
		{"unlock a gap", []Lock{rd(0, 9, 1), rd(20, 29, 1)}, un(10, 19), []Lock{rd(0, 9, 1), rd(20, 29, 1)}},
		{"lock to the end of the file", []Lock{rd(0, 9, 1)}, rd(10, eof, 2), []Lock{rd(0, eof, 1)}},
		{"lock before one to the end of the file", []Lock{wr(100, eof, 1)}, wr(0, 99, 2), []Lock{wr(0, eof, 1)}},
		{"write inside a read to the end of the file", []Lock{rd(0, eof, 1)}, wr(10, 19, 2), []Lock{rd(0, 9, 1), wr(10, 19, 2), rd(20, eof, 1)}},
		{"read of the last byte", []Lock{wr(0, eof, 1)}, rd(eof, eof, 2), []Lock{wr(0, eof-1, 1), rd(eof, eof, 2)}},
		{"whole file replaces everything", []Lock{rd(0, 9, 1), wr(10, 19, 3), rd(40, eof, 4)}, wr(0, eof, 2), []Lock{wr(0, eof, 3)}},
		{"offsets past 2^63", []Lock{rd(1<<63, 1<<63+9, 1)}, rd(1<<63+10, eof, 2), []Lock{rd(1<<63, eof, 1)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := append([]Lock(nil), c.ranges...)
			got := ApplyLock(c.ranges, c.l)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("ApplyLock(%v, %v) = %v, want %v", c.ranges, c.l, got, c.want)
			}
			if !reflect.DeepEqual(before, c.ranges) {
				t.Errorf("ApplyLock changed its input to %v", c.ranges)
			}
		})
	}
}

func TestLocksConflict(t *testing.T) {
	cases := []struct {
		held, want Lock
		conflict   bool
	}{
		{rd(0, 9, 1), rd(0, 9, 2), false},
		{rd(0, 9, 1), wr(0, 9, 2), true},
		{wr(0, 9, 1), rd(9, 9, 2), true},
		{wr(0, 9, 1), rd(10, 19, 2), false},
		{wr(10, 19, 1), wr(0, 9, 2), false},
		{wr(10, 19, 1), wr(0, 10, 2), true},
		{rd(0, eof, 1), wr(eof, eof, 2), true},
		{wr(eof, eof, 1), rd(0, eof-1, 2), false},
		{wr(0, 9, 1), un(0, 9), false},
	}
	for _, c := range cases {
		if got := LocksConflict(c.held, c.want); got != c.conflict {
			t.Errorf("LocksConflict(%v, %v) = %v, want %v", c.held, c.want, got, c.conflict)
		}
	}
}

// TestApplyLockModel applies seeded random locks to a small file both
// with ApplyLock and byte by byte, and wants the same bytes locked, in
// ranges ApplyLock itself accepts: sorted, disjoint, merged.
func TestApplyLockModel(t *testing.T) {
	const size = 24 // bytes 0..22 and "22 to the end of the file"
	seed := int64(18)
	rng := rand.New(rand.NewSource(seed))
	for round := 0; round < 2000; round++ {
		var ranges []Lock
		var model [size]uint32
		for i := range model {
			model[i] = LockUnlock
		}
		for step := 0; step < 8; step++ {
			start := uint64(rng.Intn(size - 1))
			end := start + uint64(rng.Intn(size-1-int(start)))
			l := Lock{Type: uint32(rng.Intn(3)), Start: start, End: end, Pid: uint32(rng.Intn(4))}
			if end == size-2 {
				l.End = eof
			}
			ranges = ApplyLock(ranges, l)
			for b := start; b <= end; b++ {
				model[b] = l.Type
			}
			if l.End == eof {
				model[size-1] = l.Type
			}
			if err := checkModel(ranges, model[:]); err != nil {
				t.Fatalf("seed %d round %d after %v: %v", seed, round, l, err)
			}
		}
	}
}

func checkModel(ranges []Lock, model []uint32) error {
	var bytes []uint32
	for range model {
		bytes = append(bytes, LockUnlock)
	}
	for i, r := range ranges {
		if r.Start > r.End {
			return fmt.Errorf("range %v is empty", r)
		}
		if i > 0 {
			p := ranges[i-1]
			if p.End >= r.Start {
				return fmt.Errorf("ranges %v and %v overlap or are out of order", p, r)
			}
			if p.Type == r.Type && p.End+1 == r.Start {
				return fmt.Errorf("ranges %v and %v touch and were not merged", p, r)
			}
		}
		end := r.End
		if end == eof {
			end = uint64(len(model) - 1)
		}
		for b := r.Start; b <= end && b < uint64(len(model)); b++ {
			bytes[b] = r.Type
		}
	}
	for b := range model {
		if bytes[b] != model[b] {
			return fmt.Errorf("byte %d is %d in %v, want %d", b, bytes[b], ranges, model[b])
		}
	}
	return nil
}
