// Package gc finds and removes what a volume's object store holds that
// nothing needs: objects of slices no file references (left by a crash
// between an upload and its commit, or by a bug) and the slices in the
// dead-slice queue that no client has removed yet.
//
// The safety rule. The referenced slices are read from one snapshot of
// the metadata (meta.Dumper), at time T, together with the slice-id
// counter C at that moment; the inodes sessions keep unlinked while open
// (meta.OrphanLister, which the dump leaves out) are read after it. The
// objects are listed after that, however long it takes. An object is a
// leak only when all of these hold:
//
//   - its key is a block key (chunk.ParseKey); other keys are never touched;
//   - its slice id is below C (an id at or past C was handed out after
//     the snapshot);
//   - no chunk of an inode of the snapshot and no orphan references that
//     slice (a chunk left behind by an inode that no longer exists does
//     not count), and it is not in the dead-slice queue (that queue is
//     emptied apart);
//   - the store last modified it before T minus the minimum age.
//
// A write uploads its blocks before it commits its slice, so a write in
// flight at T is safe as long as no upload precedes its commit by more
// than the minimum age (1 hour by default); the age also covers clocks
// that disagree between this machine and the store. Listing a bucket for
// hours changes nothing: every object is judged against T and C, not
// against the time it is listed.
//
// Memory: two bits per slice id and one per inode number handed out
// (meta.IDSet), about 40 MB for 100 million files and slices, whatever the
// number of objects; the listing is read one page at a time.
package gc
