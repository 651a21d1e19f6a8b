package meta

import "context"

// Destroyer is implemented by engines that can remove a volume from their
// database whole, for 'cairn destroy'. It is optional: a caller finds it
// with Capability[Destroyer], and an engine without it cannot be destroyed.
type Destroyer interface {
	// Destroy deletes every record the volume keeps in the database: its
	// tree, attributes, chunks, xattrs, locks, sessions, counters, usage
	// and, last, its settings, so that a Destroy cut short (a crash, a
	// lost connection) leaves a volume Load still finds, and running
	// Destroy again finishes the work. Records of other volumes sharing
	// the database (another Redis or etcd prefix) stay. Afterwards Load
	// returns ErrNotFormatted and Init may format a new volume there.
	//
	// It is not one transaction and must not run while clients use the
	// volume: the caller checks that no session is live.
	Destroy(ctx context.Context) error
}
