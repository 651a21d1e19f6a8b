// Package backup writes a mounted volume's metadata into the volume's own
// object store at an interval, as a dump that 'cairn load' restores, and
// prunes old backups by a retention rule. It knows the engines only as a
// meta.Dumper and the store only as an object.Store; it knows nothing of
// FUSE or the command line.
//
// # Where
//
// Backups are objects under the prefix "meta/" named by the moment the
// dump started, in UTC: meta/dump-20261124-031500.bin.gz, the binary form
// of package dump, gzip-compressed. 'cairn load META-URL FILE' reads them
// like any dump.
//
// # Who
//
// One client per volume writes backups at a time, whatever the engine:
// among the sessions ListSessions returns whose heartbeat is fresh (at
// most Config.Fresh, a minute, old), the one with the lowest id. Every
// client with backups on looks as it is mounted and then at each interval
// (at least once a minute); when the writer goes away, the next lowest
// live session takes over once the writer's heartbeat is stale. Before
// writing, a client also looks at the newest backup in the store and
// skips the turn when it is younger than nine tenths of the interval, so
// that a change of writer, or a remount, does not add an extra backup.
// Clients mounted with different intervals follow the writer's. The
// writer may be a client with backups off (--backup-meta 0), or one that
// cannot write to the store: so when three of its intervals (three
// minutes at least) pass without a backup, any client with backups on
// writes one.
//
// # How it stays out of the way
//
// The dump runs in a goroutine of its own on an operating-system thread
// niced to the lowest priority, reads the engine's snapshot (see
// meta.Dumper) and streams the compressed records to a temporary file,
// so memory stays bounded whatever the volume's size; there is no size
// cutoff. The finished file is then uploaded with object.PutFrom, which
// streams it to the local-directory store and to S3 (in 16 MiB parts).
//
// # Which are kept
//
// See Keep: every backup of the last two days, then the first of each
// day for two weeks, then the first of each week for a year; the newest
// is always kept.
package backup
