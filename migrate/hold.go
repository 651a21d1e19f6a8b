package migrate

import (
	"context"
	"os"
	"strings"
	"time"
)

// Hold is the tests' hook into a running migration, in 'cairn migrate'
// and in a mount that migrates itself alike: the migration stops once at
// a stage — copy, catch-up, switch or switched, as StageName calls them —
// until a file exists, or its context ends. Spec is "STAGE" or
// "STAGE:FILE"; without a file the hold lasts until the process is killed,
// which is how the tests stop a migration at a known moment.
type Hold struct {
	stage, until string
	announce     func(stage string) // told when the hold starts; may be nil
}

// NewHold reads spec; an empty spec holds nowhere.
func NewHold(spec string, announce func(stage string)) *Hold {
	h := &Hold{announce: announce}
	h.stage, h.until, _ = strings.Cut(spec, ":")
	return h
}

// At stops at e's stage if it is the one asked for and no hold came
// before.
func (h *Hold) At(ctx context.Context, e Event) {
	if h.stage == "" || h.stage != StageName(e) {
		return
	}
	h.stage = ""
	if h.announce != nil {
		h.announce(StageName(e))
	}
	for ctx.Err() == nil {
		if _, err := os.Stat(h.until); h.until != "" && err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// StageName is what a hold calls the moment e reports: "" for events no
// hold stops at.
func StageName(e Event) string {
	switch {
	case e.Stage == StageBulkCopy && !e.Done:
		return "copy"
	case e.Stage == StageCatchUp:
		return "catch-up"
	case e.Stage == StagePause:
		return "switch"
	case e.Stage == StageSwitch:
		return "switched"
	}
	return ""
}
