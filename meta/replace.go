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
//
// ReplaceInodes also reports the children of the entries a directory
// gained or lost, which the caller copies too (a mark names the
// directories an operation touched, not always the children that came or
// went): the engine compares with what it replaces, at no cost of a read
// of its own.
type InodeReplacer interface {
	// ReplaceInodes makes each inode of states hold exactly its Records —
	// the records a dump would hold of it: its DumpInode, the DumpEntry
	// records of the directory it is, its DumpSymlink, DumpXattr and
	// DumpChunk records. An inode without a DumpInode record is removed
	// with everything it held. Usage follows the inodes' lengths and
	// count. The new lists' slices gain a reference per record, and a
	// slice named again leaves the dead-slice queue; the old lists'
	// references are kept (Replaced.Kept). The sql family and Redis write
	// a call in one transaction. The kv family sends its writes in
	// several (etcd takes 128 operations in one), reference counts first;
	// on an error it returns the references kept by the writes that
	// committed, and the call's inodes must be replaced again.
	ReplaceInodes(ctx context.Context, states []InodeState) (Replaced, error)
	// DropReferences drops one reference for each record of slices (hole
	// records, slice id 0, count for nothing); a slice left with none goes
	// to the dead-slice queue. It may take several transactions.
	DropReferences(ctx context.Context, slices []Slice) error
	// RaiseCounters makes NextInodes and NextSlices hand out nothing below
	// nextInode and nextSlice (a counter already past them stays).
	RaiseCounters(ctx context.Context, nextInode, nextSlice uint64) error
}

// Replaced is what a ReplaceInodes call reports.
type Replaced struct {
	// Kept holds the old slice lists' records (one per reference kept),
	// for DropReferences.
	Kept []Slice
	// Moved holds the children of the entries the call's directories lost
	// or gained: an entry whose name or child differs from every entry of
	// the other side counts, a child may appear more than once.
	Moved []Ino
}

// InodeState is one inode's records for InodeReplacer.
type InodeState struct {
	Ino     Ino
	Records []DumpRecord
}

// MovedChildren is Replaced.Moved for one directory whose entries (name
// to child) were old and are now: the child of every entry that is not
// on the other side alike.
func MovedChildren(old, now map[string]Ino) []Ino {
	var out []Ino
	for name, child := range old {
		if c, ok := now[name]; !ok || c != child {
			out = append(out, child)
		}
	}
	for name, child := range now {
		if c, ok := old[name]; !ok || c != child {
			out = append(out, child)
		}
	}
	return out
}
