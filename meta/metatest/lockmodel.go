package metatest

import (
	"math/rand"

	"cairn/meta"
)

// testSetLkModel sets seeded random byte-range locks of three owners on
// one file (two of them in one session) and wants every answer the
// engine gives to be the one meta.ApplyLock and meta.LocksConflict give
// on a model of each owner's ranges: SetLk succeeds or fails with
// ErrAgain as the model says, and GetLk finds a conflicting range exactly
// when the model holds one, and one the model holds.
func testSetLkModel(x *env) {
	seed := randomSeed(x.t)
	rng := rand.New(rand.NewSource(seed))
	f := x.create(meta.RootIno, "f")
	owners := []meta.LockOwner{
		{Session: x.sid, Owner: 1}, {Session: x.sid, Owner: 2}, {Session: x.session("other"), Owner: 1},
	}
	model := make([][]meta.Lock, len(owners))
	point := func() uint64 { return uint64(rng.Intn(16)) }
	for step := 0; step < 60; step++ {
		who := rng.Intn(len(owners))
		l := meta.Lock{Type: uint32(rng.Intn(3)), Start: point(), Pid: uint32(rng.Intn(3) + 1)}
		l.End = l.Start + uint64(rng.Intn(4))
		if rng.Intn(6) == 0 {
			l.End = toEnd
		}
		var conflicts []meta.Lock
		for i, ranges := range model {
			for _, r := range ranges {
				if i != who && meta.LocksConflict(r, l) {
					conflicts = append(conflicts, r)
				}
			}
		}
		if l.Type != meta.LockUnlock {
			got, err := x.e.GetLk(x.ctx, f, owners[who], l)
			switch {
			case err != nil:
				x.t.Fatalf("seed %d step %d: GetLk %+v by %d: %v", seed, step, l, who, err)
			case len(conflicts) == 0 && got.Type != meta.LockUnlock:
				x.t.Fatalf("seed %d step %d: GetLk %+v by %d = %+v, the model holds no conflict in %v", seed, step, l, who, got, model)
			case len(conflicts) > 0 && !containsLock(conflicts, got):
				x.t.Fatalf("seed %d step %d: GetLk %+v by %d = %+v, the model conflicts with %v", seed, step, l, who, got, conflicts)
			}
		}
		err := x.e.SetLk(x.ctx, f, owners[who], l)
		if len(conflicts) > 0 {
			if !x.want(meta.ErrAgain, err, "seed %d step %d: SetLk %+v by %d against %v", seed, step, l, who, conflicts) {
				return
			}
			continue
		}
		if !x.want(nil, err, "seed %d step %d: SetLk %+v by %d in %v", seed, step, l, who, model) {
			return
		}
		model[who] = meta.ApplyLock(model[who], l)
	}
}

func containsLock(ls []meta.Lock, l meta.Lock) bool {
	for _, x := range ls {
		if x == l {
			return true
		}
	}
	return false
}
