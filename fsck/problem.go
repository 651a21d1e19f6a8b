package fsck

import "cairn/meta"

// Kind is what a Problem is about.
type Kind string

const (
	// DanglingEntry: a directory entry names an inode that does not exist.
	DanglingEntry Kind = "dangling entry"
	// WrongType: an entry's type is not its inode's.
	WrongType Kind = "wrong type"
	// WrongNlink: an inode's link count is not what its entries make it
	// (repairable).
	WrongNlink Kind = "wrong link count"
	// WrongParent: a directory's parent (its "..") is not the directory
	// that lists it, or a directory is listed more than once.
	WrongParent Kind = "wrong parent"
	// Unreachable: an inode no entry names (and no session keeps).
	Unreachable Kind = "unreachable inode"
	// BadSlice: a slice record reaches outside its chunk or its slice,
	// names a slice id never handed out, or a slice in the dead-slice
	// queue.
	BadSlice Kind = "bad slice"
	// StrayChunk: chunks of an inode that does not exist (its slices
	// stay referenced; 'cairn gc' counts their objects as leaked).
	StrayChunk Kind = "stray chunk"
	// WrongUsage: the usage counters are not what the volume holds
	// (repairable).
	WrongUsage Kind = "wrong usage"
	// MissingObject: an object holding a file's data is not in the store
	// (repairable: the file moves to lost+found).
	MissingObject Kind = "missing object"
)

// Problem is one thing found broken.
type Problem struct {
	Kind Kind
	// Path names the inode (the first of its names), or says how it can
	// be reached when it has none.
	Path   string
	Ino    meta.Ino
	Detail string

	// What a repair needs: the link count's difference, the usage's, and
	// the entry through which a file is moved to lost+found.
	nlinkDelta  int64
	spaceDelta  int64
	inodesDelta int64
	parent      meta.Ino
	name        string
}

// Repairable reports whether Repair fixes p.
func (p Problem) Repairable() bool {
	switch p.Kind {
	case WrongNlink, WrongUsage:
		return true
	case MissingObject:
		return p.parent != 0
	}
	return false
}
