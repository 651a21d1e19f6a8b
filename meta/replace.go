package meta

import "context"

// InodeReplacer is an optional interface of an engine (find it with
// Capability): the receiving side of an online migration's catch-up
// (package migrate), which copies inodes one by one into a volume that
// a bulk copy (Dumper.Restore) started.
//
// It must not run while clients use the database: the volume it writes
// is a copy nobody mounts yet, and it checks no permission and sets no
// time of its own.
type InodeReplacer interface {
	// ReplaceInodes makes each inode of states hold exactly its Records —
	// the records a dump would hold of it: its DumpInode, the DumpEntry
	// records of the directory it is, its DumpSymlink, DumpXattr and
	// DumpChunk records — in one transaction. An inode without a
	// DumpInode record is removed with everything it held. Slice
	// references follow the lists (all the new lists' references are
	// added before any old list's are dropped), a slice left with none
	// goes to the dead-slice queue, a slice named again leaves it, and
	// Usage follows the inodes' lengths and count.
	ReplaceInodes(ctx context.Context, states []InodeState) error
	// RaiseCounters makes NextInodes and NextSlices hand out nothing below
	// nextInode and nextSlice (a counter already past them stays).
	RaiseCounters(ctx context.Context, nextInode, nextSlice uint64) error
}

// InodeState is one inode's records for InodeReplacer.
type InodeState struct {
	Ino     Ino
	Records []DumpRecord
}
