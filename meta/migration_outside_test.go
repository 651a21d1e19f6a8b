package meta_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"cairn/meta"
)

// TestMigrationWriteOutsideMount: WriteOutsideMount runs a write only
// when a migration will carry it, and says so when a migration may have
// read SRC before the write (its closure moves the record, as a
// migrator would while the write runs).
func TestMigrationWriteOutsideMount(t *testing.T) {
	const dst = "postgres://db.example/vol"
	const none = ""
	cases := []struct {
		name    string
		kind    meta.OutsideWrite
		before  string // the record's phase before the write; none: no record
		expired bool   // the record's deadline has passed
		during  string // the phase the write leaves; none: as it was
		fail    bool   // the write fails
		written bool   // the write ran
		want    error
		line    string // in the error
	}{
		{name: "usage while tracking", kind: meta.UsageWrite, before: meta.MigrationTracking, written: true},
		{name: "usage, switch begins meanwhile", kind: meta.UsageWrite, before: meta.MigrationTracking, during: meta.MigrationPausing, written: true,
			want: meta.ErrMovedMeanwhile, line: "began moving the volume to " + dst + " while this ran: the change may be missing there"},
		{name: "usage, switched meanwhile", kind: meta.UsageWrite, before: meta.MigrationTracking, during: meta.MigrationSwitched, written: true,
			want: meta.ErrMovedMeanwhile, line: "the volume moved to " + dst + " while this ran: the change may be missing there; run this again against " + dst},
		{name: "usage fails, switch begins meanwhile", kind: meta.UsageWrite, before: meta.MigrationTracking, during: meta.MigrationPausing, fail: true, written: true,
			want: meta.ErrMovedMeanwhile, line: "(this run also failed: write failed)"},
		{name: "usage while pausing", kind: meta.UsageWrite, before: meta.MigrationPausing,
			want: meta.ErrMigrating, line: "moving this volume to " + dst + ": nothing was changed"},
		{name: "usage, stopped migrator", kind: meta.UsageWrite, before: meta.MigrationPausing, expired: true, written: true},
		{name: "usage after the switch", kind: meta.UsageWrite, before: meta.MigrationSwitched, want: meta.ErrMoved},
		{name: "volume, no migration", kind: meta.VolumeWrite, written: true},
		{name: "volume while tracking", kind: meta.VolumeWrite, before: meta.MigrationTracking,
			want: meta.ErrMigrating, line: "moving this volume to " + dst + ": nothing was changed"},
		{name: "volume, migration begins meanwhile", kind: meta.VolumeWrite, during: meta.MigrationTracking, written: true,
			want: meta.ErrMovedMeanwhile, line: "began moving the volume to " + dst},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			e := trackerVolume(t, "src")
			log, _ := meta.Capability[meta.ChangeLog](e)
			var stored []byte
			setPhase := func(phase string) {
				deadline := time.Now().Add(time.Minute)
				if c.expired {
					deadline = time.Now().Add(-time.Second)
				}
				next := meta.EncodeMigration(meta.MigrationRecord{ID: "m", Destination: dst, Phase: phase, Deadline: deadline})
				if err := log.SwapMigration(ctx, stored, next); err != nil {
					t.Fatal(err)
				}
				stored = next
			}
			if c.before != none {
				setPhase(c.before)
			}
			written := false
			err := meta.WriteOutsideMount(ctx, e, c.kind, func() error {
				written = true
				if c.during != none {
					setPhase(c.during)
				}
				if c.fail {
					return errors.New("write failed")
				}
				return nil
			})
			if written != c.written {
				t.Errorf("the write ran: %v, want %v", written, c.written)
			}
			switch {
			case c.want == nil && err != nil:
				t.Errorf("WriteOutsideMount = %v, want no error", err)
			case c.want != nil && (!errors.Is(err, c.want) || !strings.Contains(err.Error(), c.line)):
				t.Errorf("WriteOutsideMount = %v, want %v saying %q", err, c.want, c.line)
			}
		})
	}
}
