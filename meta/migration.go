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
	b, err := log.Migration(ctx)
	if err != nil || b == nil {
		return err
	}
	r, err := DecodeMigration(b)
	if err != nil {
		return err
	}
	if r.Phase == MigrationSwitched {
		return fmt.Errorf("%w to %s ('cairn migrate'): use that URL; this database keeps only the old copy", ErrMoved, r.Destination)
	}
	return nil
}
