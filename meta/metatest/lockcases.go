package metatest

import (
	"math"

	"cairn/meta"
)

// The tables below feed the tests that hold the database ports of the
// byte-range lock rules (meta.ApplyLock, meta.LocksConflict) to the Go
// reference: each state is one owner's ranges before a request, and every
// request is tried against every state. far is the highest offset the
// port holds exactly (Redis's Lua numbers are exact below 2^53; the SQL
// routines compare 8-byte keys, exact to the last byte).

// LockStates lists owners' ranges as ApplyLock leaves them, with distinct
// pids so that the pid a merge keeps shows.
func LockStates(far uint64) [][]meta.Lock {
	r := func(start, end uint64, pid uint32) meta.Lock {
		return meta.Lock{Type: meta.LockRead, Start: start, End: end, Pid: pid}
	}
	w := func(start, end uint64, pid uint32) meta.Lock {
		return meta.Lock{Type: meta.LockWrite, Start: start, End: end, Pid: pid}
	}
	return [][]meta.Lock{
		nil,
		{r(5, 9, 1)},
		{w(5, 9, 1)},
		{r(0, 4, 1), w(5, 9, 2), r(10, 14, 3)},
		{w(0, 4, 1), r(10, 14, 2), w(20, math.MaxUint64, 3)},
		{r(1, 1, 4), r(6, 9, 5), w(11, 19, 6)},
		{r(0, math.MaxUint64, 7)},
		{w(4, 5, 8), w(14, 15, 9), r(far-1, far, 10)},
	}
}

// LockRequests lists requests of every type over ranges whose ends fall
// on, beside and between the states' ends, up to the end of the file.
func LockRequests(far uint64) []meta.Lock {
	points := []uint64{0, 1, 4, 5, 6, 9, 10, 11, 14, 15, 19, 20, far, math.MaxUint64}
	var out []meta.Lock
	for i, start := range points[:len(points)-1] {
		for _, end := range points[i:] {
			for _, typ := range []uint32{meta.LockRead, meta.LockWrite, meta.LockUnlock} {
				out = append(out, meta.Lock{Type: typ, Start: start, End: end, Pid: 100})
			}
		}
	}
	return out
}
