// Package fsck checks a volume: that its metadata holds together (every
// entry names an inode of the right type, link counts equal the entries,
// directories know their parent, slices lie within their chunks, the usage
// counters equal what is stored) and that every object a file needs is in
// the object store. It names what is broken by path, and repairs what can
// be repaired without guessing.
//
// It reads the metadata through meta.Dumper, one consistent snapshot, so
// it may run while clients use the volume; a repair changes counters by a
// difference (meta.Repairer) and moves files with ordinary engine calls,
// so that what clients did meanwhile stays right. It knows nothing of
// mounts or of how blocks are cut beyond chunk.SliceKeys.
package fsck
