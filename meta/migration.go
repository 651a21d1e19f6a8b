package meta

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// MigrationRecord is what a ChangeLog's migration record holds (package
// migrate writes it; every client reads it).
type MigrationRecord struct {
	// ID names one attempt; a rerun gets a new one.
	ID string `json:"id"`
	// Destination is DST's URL without its password.
	Destination string `json:"destination"`
	// Phase is where the migration is: MigrationTracking, MigrationPausing
	// or MigrationSwitched.
	Phase string `json:"phase"`
	// Deadline is when clients give up on a migrator that stopped pushing
	// it forward (before MigrationSwitched).
	Deadline time.Time `json:"deadline"`
}

// The phases of a migration.
const (
	MigrationTracking = "tracking"
	MigrationPausing  = "pausing"
	MigrationSwitched = "switched"
)

// Stopped tells whether r's migrator stopped pushing the migration
// forward: its deadline passed before the switch. Clients, commands and
// a new migrator then remove the record, and the volume stays on SRC.
func (r MigrationRecord) Stopped(now time.Time) bool {
	return r.Phase != MigrationSwitched && now.After(r.Deadline)
}

// EncodeMigration is the stored form of r.
func EncodeMigration(r MigrationRecord) []byte {
	b, err := json.Marshal(r)
	if err != nil {
		panic(err) // a struct of strings and a time always encodes
	}
	return b
}

// DecodeMigration reads a stored record.
func DecodeMigration(b []byte) (MigrationRecord, error) {
	var r MigrationRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("corrupt migration record: %w", err)
	}
	return r, nil
}

// ErrMoved is what CheckMoved returns for a volume migrated elsewhere.
var ErrMoved = errors.New("volume moved")

// CheckMoved refuses a volume that a migration moved to another engine,
// with a line saying where it went. An engine without ChangeLog, or a
// volume whose migration has not switched, passes.
func CheckMoved(ctx context.Context, e Engine) error {
	log, ok := Capability[ChangeLog](e)
	if !ok {
		return nil
	}
	_, r, err := readMigration(ctx, log)
	if err != nil || r == nil || r.Phase != MigrationSwitched {
		return err
	}
	return movedError(*r)
}

// movedError is CheckMoved's line for the switched record r.
func movedError(r MigrationRecord) error {
	return fmt.Errorf("%w to %s ('cairn migrate'): use that URL; this database keeps only the old copy", ErrMoved, r.Destination)
}

// readMigration returns log's record as stored and decoded; nil for none.
func readMigration(ctx context.Context, log ChangeLog) ([]byte, *MigrationRecord, error) {
	b, err := log.Migration(ctx)
	if err != nil || b == nil {
		return nil, nil, err
	}
	r, err := DecodeMigration(b)
	if err != nil {
		return nil, nil, err
	}
	return b, &r, nil
}

// The acknowledgements a client appends to the change log while it
// follows a migration: Change{Kind: ChangeAck, Session: its session on
// SRC, Operation: one of these}. The log exists only as long as one
// record, so an acknowledgement belongs to the migration whose record the
// log was started with. A client appends each at most once per
// migration, in this order.
const (
	// MigrationAckTracking: the client saw the record in phase
	// MigrationTracking (or later), and every mutation it had started
	// untracked has returned; every mutation it starts, and every one
	// in flight, now appends a pre-mark before it runs and a post-mark
	// after it returns.
	MigrationAckTracking = 1
	// MigrationAckPaused: the client saw phase MigrationPausing, holds
	// every new mutation (reads go on), no mutation of it is in flight,
	// and the post-marks of all its mutations are appended (numbered
	// before this acknowledgement). It stays so until the record says
	// MigrationSwitched or its deadline passes.
	MigrationAckPaused = 2
	// MigrationAckSwitched: the client saw phase MigrationSwitched and
	// opened DST; it is appended to SRC's log just before the client
	// swaps its engine, so the migrator can report which clients
	// followed. The client never writes SRC again.
	MigrationAckSwitched = 3
	// MigrationAckFromStart: appended with MigrationAckTracking by a
	// client that saw the record when it started, before its session's
	// first mutation: every change it ever made is tracked, so a
	// migrator need not refuse it for having started during the copy.
	MigrationAckFromStart = 4
)

// How a client follows the record. It reads the record on every session
// heartbeat and, while a record exists, every MigrationPoll, so that a
// phase is seen within MigrationPoll plus the time its acknowledgement
// takes. A record whose Deadline passed before phase MigrationSwitched
// is a migrator that stopped: the client removes it
// (SwapMigration(ctx, record, nil), which also drops the log), stops
// tracking, resumes if paused, and goes on on SRC. Once it read
// MigrationSwitched the client never resumes on SRC (the volume lives on
// DST: a write to SRC would be lost): while it cannot open DST it stays
// paused, logs a warning and retries every MigrationPoll; once the
// record's Deadline has passed its mutations fail with EIO instead of
// waiting (reads go on, from SRC, which no longer changes), until DST
// opens. A client without ClientConfig.OpenEngine does not follow (and
// never acknowledges), as an older build.
const MigrationPoll = 200 * time.Millisecond
