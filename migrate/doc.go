// Package migrate moves a mounted volume from one metadata engine (SRC) to
// another, empty one (DST) while clients keep reading and writing
// ('cairn migrate SRC-URL DST-URL'). It goes through the engine contract
// only — meta.Dumper for the bulk copy, meta.ChangeLog for the change log
// and the migration record, and an inode-replacing interface on DST — so
// any pair of engines works. It knows nothing of FUSE, vfs or the object
// store: file data stays where it is (the object store is shared by both
// engines, a block is named by its slice id, and slice ids are never
// reused), only the metadata moves.
//
// # The protocol
//
// A migration is a record in SRC (meta.ChangeLog.SwapMigration, a
// compare-and-swap so that two migrators cannot both run) and an
// append-only change log next to it with one global sequence. The record
// holds an id (random, new for each attempt), DST's URL with its password
// removed, a phase, and a deadline the migrator pushes forward while it
// runs.
//
//  1. Announce. The migrator writes the record with phase "tracking".
//     Every mount's meta.Client reads the record on its session heartbeat
//     (and polls faster while one exists), and from then on tracks its
//     mutations (step 2). Once every mutation it had started untracked has
//     returned, it appends an acknowledgement (a ChangeAck mark naming its
//     session and the migration id). The migrator waits until every live
//     session has acknowledged; a session that does not (an older build,
//     which does not know the record) makes it refuse, naming the
//     session's host, pid, mount point and version from ListSessions.
//
//  2. Tracking. Before each mutating engine call a tracking client appends
//     a pre-mark (ChangeBefore) naming the inodes the call may change that
//     it knows beforehand: the inode itself, its parent or both parents of
//     a rename. After the call returns it appends a post-mark (ChangeAfter)
//     with the same operation number and, added, the inodes the call
//     reported (the inode a name pointed to, the one a rename replaced).
//     Post-marks may be batched, but are appended before the client
//     acknowledges a pause (a client appends the post-marks it gathered
//     at most 2 ms apart, so a tracked mutation costs its pre-mark's
//     round trip to SRC and a share of one for its post-mark while a
//     migration runs). Tracking is a meta.Engine wrapper (meta.Tracker), so
//     every mutation the client makes (writes' slice commits, compaction,
//     trash moves and purges, clones) is tracked the same way.
//
//     The sequence of the log is its commit order: an append takes the
//     sequence from a counter that the appending transaction updates (a
//     row, key or script the database serializes), so when the migrator
//     reads the log's end P, every mark numbered up to P is committed and
//     visible, and every mark appended afterwards gets a number above P.
//
//  3. Bulk copy. After all acknowledgements the migrator reads the log's
//     end P0, then dumps SRC (meta.Dumper: one snapshot S0) into DST
//     (meta.Dumper.Restore; DST must be empty, as for 'cairn load').
//
//  4. Catch-up rounds. Round k reads the end Pk, then copies to DST the
//     present state of every inode named by a change in (Pk-1, Pk]:
//     attributes, a directory's entries, the slice lists, the extended
//     attributes, a symlink's target, read through SRC's ordinary engine
//     calls after Pk was read (meta.InodeReplacer writes them into DST);
//     an inode absent from SRC, or linked nowhere, is removed from DST.
//     When a directory's entries are copied, every child that came into
//     or left it (compared with DST's copy) is copied too, so a mark only
//     has to name the directories an operation touched for the children
//     that came or went to follow (an rmdir names no child; a rename over
//     a file that keeps another link reports no replaced inode). Rounds
//     repeat until one copies fewer than a few thousand inodes. The reads
//     of one inode are not one snapshot: a change that lands among them
//     has a post-mark above Pk, so a later round or the switch copies the
//     inode again; the copy is exact once SRC is still.
//
//  5. Switch. The migrator sets the phase "pausing". Every client stops
//     starting mutations, waits for those in flight, appends their
//     post-marks, writes to SRC its statistics flushes still in doubt
//     (meta.FlushMark: their marks' records do not move to DST) and
//     acknowledges the pause. The migrator then copies, from
//     a SRC that no longer changes, the inodes of the post-marks after the
//     last round and of every pre-mark without a post-mark (its client died
//     mid-operation: the mutation may or may not have committed, and
//     copying the inode's present state is right either way), copies the
//     directory statistics and quotas that differ between SRC and DST
//     (clients flush statistics and set quotas outside the change log, so
//     the two are compared whole: reading both is the one part of the
//     pause that grows with the volume, with its number of directories),
//     copies the id counters (DST's ≥ SRC's, so ids the clients hold in
//     reserve stay unique), writes SRC's "moved to DST" setting, and sets
//     the phase
//     "switched". Each client reopens its engine on DST (a wrapper in meta
//     swaps the engine under the Client atomically), registers its session
//     there (with its open orphans and locks), and resumes. The pause lasts
//     as long as the last round's inodes and the in-flight operations, not
//     as long as the volume.
//
// # Why nothing acknowledged is lost
//
// Let M be a mutation whose call returned to the application before the
// switch. M started either before its client acknowledged tracking — then
// it returned before that acknowledgement, so before P0 was read and
// before S0 was taken, and S0 holds it — or after, and then it has a
// pre-mark appended before it ran. If its post-mark is numbered s ≤ Pk for
// a round k, M committed before the mark was appended, the mark before Pk
// was read and Pk before round k read SRC: round k sees M's effect, and
// copies every inode M changed (those it named, and through the directory
// rule those it linked or unlinked). A later mutation of the same inodes
// has a later post-mark and is copied again in a later round or at the
// switch, so DST ends with each inode's last state. If M's post-mark is
// above the last round, or missing, the switch copies M's inodes from the
// still SRC. After the switch no client writes SRC: it is marked moved,
// and clients only write to DST. An inode no mark names was not changed
// since S0 and is in DST from the bulk copy. The statistics and quotas a
// client wrote before the pause, and the flushes it had in doubt, are in
// SRC at the switch and copied then; what it writes after goes to DST.
//
// Slices shared by clones keep exact reference counts, and a slice
// still named never passes through DST's dead-slice queue (whose deleter
// would delete its blocks), because a round adds all its references
// before it drops any, whatever its size: meta.InodeReplacer's
// ReplaceInodes adds the references of the new slice lists and hands
// back those of the old lists unchanged, and CopyInodes drops them with
// DropReferences only once every inode of the round is written. A slice
// leaving an inode of one call for an inode of a later call keeps a
// reference throughout. The dead-slice deleters may go on meanwhile: a
// slice is dead only when nothing names it, and slice ids are never
// reused, so deleting its blocks through SRC's queue and again through
// DST's is harmless, and a live block is never deleted.
//
// An inode with no link left (unlinked while open, an orphan of a
// session) is not copied, as a dump leaves it out: it belongs to the
// session that holds it open, which registers it again on DST at the
// switch together with its locks.
//
// # Killed at any moment
//
// Before "switched", the volume's truth is SRC: DST is only a copy. A
// migrator killed before the switch stops pushing the record's deadline;
// once it passes, clients drop the record (SwapMigration with the record
// they read), which also drops the log, and stop tracking. A rerun sees
// DST holding a volume whose settings carry the old migration's id and
// empties it (only then: any other content of DST is refused as "not
// empty"), and starts over. A migrator killed during "pausing" leaves
// clients paused until the deadline, then they resume on SRC. Once
// "switched" is written the volume lives on DST; a rerun finds SRC
// moved and says so.
//
// # Trust
//
// The record holds DST's URL without its password, because every client
// able to read SRC would read it. Each mount takes the password from its
// own environment (META_PASSWORD_DST, as META_PASSWORD for SRC).
//
// # The migrator (Run)
//
// Run keeps its record alive with a lease: the deadline is 30 seconds
// ahead, pushed every 10 seconds (Options.Lease), long enough for a slow
// SRC and some clock skew between machines, short enough that a killed
// migrator holds clients tracking, or paused, for at most half a minute.
// A rerun finding a record past its deadline takes its place. Every
// change of the record is a compare-and-swap against the bytes Run last
// wrote: a record a client dropped (its deadline passed) ends the
// migration instead of being overwritten.
//
// A session counts as live while its heartbeat is younger than the
// clients' own session timeout (5 minutes); a silent one writes nothing.
// Run waits for every live session's tracking acknowledgement (1 minute)
// and pause acknowledgement (10 seconds). A session that does not pause
// in time ends the migration with the volume on SRC rather than sending
// the clients back to tracking to try again: the other mounts'
// applications have already waited that long, and a session stuck in an
// engine call is likely to be stuck the next time too.
//
// A mount that starts after the bulk copy's snapshot was taken changed
// the volume untracked until it first read the record, after the
// snapshot: those changes may be in neither the copy nor the log. Run
// therefore ends at the pause, naming it, when a session that paused had
// not acknowledged tracking by the copy's start (LateSessionError); a
// rerun starts over with it tracking from the beginning.
//
// The bulk copy marks DST's settings (meta.Format.CopyOf and CopyID) as
// this source's copy. A rerun empties a DST so marked (meta.Destroyer),
// when its source URL and UUID are this SRC's and no session uses it;
// any other content is ErrNotEmpty, the same volume without the mark
// ErrSameVolume. The mark stays after the switch: SRC is moved then, and
// no migration of it starts again.
//
// # What this package does today
//
// All of the above, on every engine family: the change log and migration
// record (meta.ChangeLog), the client following the record on its
// heartbeat (meta.Client behind meta.Tracker: tracking, pausing,
// reopening on DST with its session, orphans and locks; a mount opens DST
// with META_PASSWORD_DST), the bulk copy (BulkCopy), the catch-up rounds
// (CatchUpRound, CopyInodes, meta.InodeReplacer on sql, kv and redis),
// the migrator's part of the switch (Finish: the last changes and the
// unfinished operations read in one pass of the log, counters, SRC
// marked moved, which meta.CheckMoved refuses), and the migrator (Run,
// 'cairn migrate'): the announce, the lease, the acknowledgements, the
// late mounts, the rerun over an earlier attempt's copy. Run also runs
// inside a mount's process (package control, 'cairn migrate PATH
// DST-URL'), with the mount's own engine as SRC: the way to move a
// mounted Badger volume, which one process alone may open.
package migrate
