package meta

import (
	"context"
	"errors"
)

// ChangeLog is an optional interface of an engine (find it with
// Capability): the migration record and change log that online migration
// (package migrate) keeps in the volume's database. It is the only thing
// a migration needs from the engine it leaves.
//
// The migration record is an opaque value (package migrate encodes it);
// at most one exists. The change log exists exactly while the record
// does: creating the record starts an empty log, removing the record
// drops the log.
//
// Changes are numbered by one sequence, from 1 upward without gaps, in
// commit order: when ChangesEnd returns n, every change numbered up to n
// is committed and readable, and every change appended after ChangesEnd
// returned gets a number above n. Appends from many clients may run at
// once; the engine serializes them on the sequence.
//
// All methods are safe for concurrent use.
type ChangeLog interface {
	// Migration returns the migration record, or nil when there is none.
	Migration(ctx context.Context) ([]byte, error)
	// SwapMigration replaces the record old by next in one transaction:
	// old nil means that there must be no record, next nil removes it.
	// ErrConflict when the record is not old (compared byte for byte);
	// ErrInvalid for an empty next (some stores cannot tell an empty
	// value from none).
	// Creating the record starts an empty log whose sequence begins at 1;
	// removing it drops the log.
	SwapMigration(ctx context.Context, old, next []byte) error
	// AppendChanges durably appends changes in one transaction, numbered
	// in the order given (their Seq is ignored), and returns the number of
	// the last. ErrNoMigration when there is no record (the migration
	// ended): nothing is appended.
	AppendChanges(ctx context.Context, changes []Change) (uint64, error)
	// Changes returns up to limit changes numbered above after, in order;
	// fewer than limit (none) means the end of the log. ErrNoMigration
	// when there is no record.
	Changes(ctx context.Context, after uint64, limit int) ([]Change, error)
	// ChangesEnd is the number of the last change appended (0 for none).
	// ErrNoMigration when there is no record.
	ChangesEnd(ctx context.Context) (uint64, error)
	// TrimChanges drops the changes numbered up to through; the sequence
	// goes on from where it was. ErrNoMigration when there is no record.
	TrimChanges(ctx context.Context, through uint64) error
}

// ChangeKind says what a Change marks.
type ChangeKind uint8

const (
	// ChangeBefore: session Session is about to run its operation
	// Operation, which may change Inodes.
	ChangeBefore ChangeKind = iota + 1
	// ChangeAfter: the operation Operation of session Session returned
	// (successfully or not); Inodes are those it may have changed.
	ChangeAfter
	// ChangeAck: session Session acknowledges the migration phase whose
	// number is Operation.
	ChangeAck
)

// Change is one entry of a ChangeLog.
type Change struct {
	Seq       uint64
	Kind      ChangeKind
	Session   uint64
	Operation uint64
	Inodes    []Ino
}

// ErrNoMigration is what ChangeLog's log methods return when no migration
// record exists: the migration ended, and a client stops tracking.
var ErrNoMigration = errors.New("no migration in progress")

// MaxChangeInodes is how many inodes one Change names at most; an
// operation that changes more (none does today) uses several changes.
const MaxChangeInodes = 16
