package meta

// What a client's ChangeAck acknowledges (its Operation): the phases of a
// migration record it has reached. Until h-mclient's contract lands on
// this branch, these stand for it.
const (
	// MigrationAckTracking: every mutation of the session that started
	// untracked has returned; all later ones are tracked.
	MigrationAckTracking uint64 = iota + 1
	// MigrationAckPaused: the session starts no mutation and has none in
	// flight; its post-marks are appended.
	MigrationAckPaused
	// MigrationAckSwitched: the session saw "switched" and reopens on DST.
	MigrationAckSwitched
)
