package meta

import "context"

// Repairer is implemented by engines that let 'cairn fsck --repair' fix the
// counters an engine keeps and a check found wrong. Both methods change a
// counter by a difference, in one transaction, rather than set it: the
// check computes what is wrong from a snapshot (Dumper) while clients may
// keep working, and a difference stays right whatever they did since,
// where a value read then would undo their changes. Neither method checks
// permissions; they are for the volume's operator.
type Repairer interface {
	// AdjustNlink adds delta to ino's link count and changes nothing else
	// (not even ctime). ErrNotFound when ino does not exist; ErrInvalid
	// when the count would fall below 0 or above 2^32-1.
	AdjustNlink(ctx context.Context, ino Ino, delta int64) error
	// AdjustUsage adds space bytes and inodes inodes (either may be
	// negative) to the volume's Usage.
	AdjustUsage(ctx context.Context, space, inodes int64) error
}

// AdjustedNlink is nlink plus delta, and false when that is outside what
// a link count can hold: the rule every Repairer applies.
func AdjustedNlink(nlink uint32, delta int64) (uint32, bool) {
	n := int64(nlink) + delta
	if n < 0 || n > 1<<32-1 {
		return 0, false
	}
	return uint32(n), true
}
