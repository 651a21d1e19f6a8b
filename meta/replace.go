package meta

import "context"

// InodeReplacer is an optional interface of an engine (find it with
// Capability): the receiving side of an online migration's catch-up
// (package migrate), which copies inodes one by one into a volume that
// a bulk copy (Dumper.Restore) started.
//
// It must not run while clients use the database: the volume it writes
// is a copy nobody mounts yet, and it checks no permission and sets no
// time of its own. One caller at a time.
//
// Slices shared by clones must never pass through the dead-slice queue
// while some inode still names them, or the queue's deleter would delete
// their blocks. A migration round replaces many inodes, in as many calls
// as it needs, and a slice may move from an inode of one call to an inode
// of a later one; so ReplaceInodes only adds references and hands back
// the old lists' references unchanged, and the caller drops them with
// DropReferences once every inode of its round is replaced: all the
// round's references are added before any is dropped, whatever the
// round's size.
type InodeReplacer interface {
	// ReplaceInodes makes each inode of states hold exactly its Records —
	// the records a dump would hold of it: its DumpInode, the DumpEntry
	// records of the directory it is, its DumpSymlink, DumpXattr and
	// DumpChunk records. An inode without a DumpInode record is removed
	// with everything it held. Usage follows the inodes' lengths and
	// count. The new lists' slices gain a reference per record, and a
	// slice named again leaves the dead-slice queue; the old lists'
	// references are kept, and returned (a record each) for
	// DropReferences. The sql family and Redis write a call in one
	// transaction; the kv family an inode per transaction (etcd takes 128
	// operations in one), each inode whole, and on an error returns the
	// references kept of the inodes it wrote before.
	ReplaceInodes(ctx context.Context, states []InodeState) (kept []Slice, err error)
	// DropReferences drops one reference for each record of slices (hole
	// records, slice id 0, count for nothing); a slice left with none goes
	// to the dead-slice queue. It may take several transactions.
	DropReferences(ctx context.Context, slices []Slice) error
	// RaiseCounters makes NextInodes and NextSlices hand out nothing below
	// nextInode and nextSlice (a counter already past them stays).
	RaiseCounters(ctx context.Context, nextInode, nextSlice uint64) error
}

// InodeState is one inode's records for InodeReplacer.
type InodeState struct {
	Ino     Ino
	Records []DumpRecord
}
