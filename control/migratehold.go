package control

import (
	"context"
	"os"
	"strings"
	"time"

	"cairn/migrate"
)

// migrateHold is the test hook MigrateRequest.Hold: the migration stops
// once at a stage, in the mount, as 'cairn migrate SRC-URL DST-URL' stops
// in its own process.
type migrateHold struct {
	stage string
	until string // a file whose creation ends the hold; "": the command's end
}

func newMigrateHold(spec string) *migrateHold {
	h := &migrateHold{}
	h.stage, h.until, _ = strings.Cut(spec, ":")
	return h
}

// at stops at e's stage if it is the one asked for, until the file exists
// or ctx ends.
func (h *migrateHold) at(ctx context.Context, e migrate.Event) {
	if h.stage == "" || h.stage != stageName(e) {
		return
	}
	h.stage = ""
	for ctx.Err() == nil {
		if _, err := os.Stat(h.until); h.until != "" && err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stageName is how the command names e's stage.
func stageName(e migrate.Event) string {
	switch {
	case e.Stage == migrate.StageBulkCopy && !e.Done:
		return "copy"
	case e.Stage == migrate.StageCatchUp:
		return "catch-up"
	case e.Stage == migrate.StagePause:
		return "switch"
	case e.Stage == migrate.StageSwitch:
		return "switched"
	}
	return ""
}
