package meta

import (
	"math"
	"sort"
)

// The byte-range lock rules every engine applies. The Redis family runs
// them in Lua (meta/redis/scripts/setlk.lua, plock.lua), PostgreSQL and
// MySQL check conflicts in their cairn_setlk routines; each port is held
// to these functions case by case by a test through the real server.

// LocksConflict reports whether held, a lock of another owner, keeps want
// from being set: their ranges share a byte and one of them is a write
// lock. An owner's own locks never conflict with its requests.
func LocksConflict(held, want Lock) bool {
	if held.Type == LockUnlock || want.Type == LockUnlock {
		return false
	}
	overlap := held.Start <= want.End && want.Start <= held.End
	return overlap && (held.Type == LockWrite || want.Type == LockWrite)
}

// ApplyLock returns one owner's ranges after it sets l (LockRead,
// LockWrite) or clears it (LockUnlock) with fcntl(F_SETLK), as Linux
// does: the part of older ranges that l covers takes l's type (or is
// freed), and ranges of one type that overlap or touch become one range.
// ranges must be as ApplyLock returns them: sorted by start, disjoint, no
// two touching ranges of one type. A range that absorbs older ones keeps
// the pid of the lowest of them (Linux extends the first lock it finds
// and leaves its pid); only a range that absorbs none carries l's pid.
// ranges is not modified.
func ApplyLock(ranges []Lock, l Lock) []Lock {
	out := make([]Lock, 0, len(ranges)+2)
	grown := l
	absorbed, lowest := false, uint64(0)
	for _, r := range ranges {
		switch {
		case l.Type != LockUnlock && r.Type == l.Type && locksTouch(r, l):
			if !absorbed || r.Start < lowest {
				grown.Pid, lowest = r.Pid, r.Start
			}
			absorbed = true
			grown.Start = min(grown.Start, r.Start)
			grown.End = max(grown.End, r.End)
		case r.Start <= l.End && l.Start <= r.End:
			if r.Start < l.Start {
				left := r
				left.End = l.Start - 1
				out = append(out, left)
			}
			if r.End > l.End {
				right := r
				right.Start = l.End + 1
				out = append(out, right)
			}
		default:
			out = append(out, r)
		}
	}
	if l.Type != LockUnlock {
		out = append(out, grown)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

// locksTouch reports whether a and b overlap or are adjacent: no byte
// lies between them.
func locksTouch(a, b Lock) bool {
	return (a.End == math.MaxUint64 || a.End+1 >= b.Start) && (b.End == math.MaxUint64 || b.End+1 >= a.Start)
}
