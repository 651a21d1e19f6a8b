package control

import (
	"encoding/json"
	"fmt"
	"time"
)

// Version is the protocol's version. A request of another version is
// refused with one line, so that a command and a mount of different
// releases never misread each other.
const Version = 1

// The operations a Request may ask for.
const (
	OpRmr     = "rmr"
	OpRestore = "restore"
	OpClone   = "clone"
	OpCompact = "compact"
	OpInfo    = "info"
	OpSummary = "summary"
	OpWarmup  = "warmup"
	OpFloor   = "floor"
	OpMigrate = "migrate"
)

// Request is the one line of JSON a command sends after connecting.
// Paths are from the mount's root ("/" is the root), with every symbolic
// link but the last component's resolved by the caller; the mount looks
// each name up again as the caller, with the caller's search permission.
type Request struct {
	Version int    `json:"version"`
	Op      string `json:"op"`
	Path    string `json:"path"` // also floor's: the directory whose listing it times
	// Shown is how the caller named Path, for messages.
	Shown string `json:"shown,omitempty"`
	// Target is clone's destination, a new name (from the mount's root);
	// TargetShown how the caller named it.
	Target      string `json:"target,omitempty"`
	TargetShown string `json:"target_shown,omitempty"`
	Preserve    bool   `json:"preserve,omitempty"` // clone --preserve
	Threads     int    `json:"threads,omitempty"`  // rmr, summary, warmup
	Top         int    `json:"top,omitempty"`      // summary --top
	Count       bool   `json:"count,omitempty"`    // summary --count
	Ops         int    `json:"ops,omitempty"`      // floor: probes of each kind per thread
	// Migrate is what a migration of the mount's volume needs.
	Migrate *MigrateRequest `json:"migrate,omitempty"`
}

// MigrateRequest is the part of a Request that says where the mount's
// volume moves: DST's URL as the user gave it (with a password or not),
// and $META_PASSWORD_DST of the command. Neither is ever logged.
type MigrateRequest struct {
	Destination  string        `json:"destination"`
	Password     string        `json:"password,omitempty"`
	AckTimeout   time.Duration `json:"ack_timeout,omitempty"`
	PauseTimeout time.Duration `json:"pause_timeout,omitempty"`
	// Test hooks: Lease shortens the record's lease (0: the default);
	// Hold, "STAGE" or "STAGE:FILE", stops the migration at a stage
	// (copy, catch-up, switch, switched) until FILE exists or the command
	// goes, so that a test kills the command at a known moment.
	Lease time.Duration `json:"lease,omitempty"`
	Hold  string        `json:"hold,omitempty"`
}

// Bounds on what one request may ask of the mount: any user of a shared
// mount may send one, so none may make it start goroutines or buffers
// without end.
const (
	maxThreads     = 1024
	maxTop         = 10000
	maxFloorProbes = 1 << 20
)

// check refuses a request whose counts exceed the bounds (0 picks each
// operation's default).
func (r *Request) check() error {
	switch {
	case r.Threads < 0 || r.Threads > maxThreads:
		return fmt.Errorf("threads %d: use 1 to %d", r.Threads, maxThreads)
	case r.Top < 0 || r.Top > maxTop:
		return fmt.Errorf("top %d: use 0 to %d", r.Top, maxTop)
	case r.Ops < 0 || r.Ops > maxFloorProbes:
		return fmt.Errorf("ops %d: use 1 to %d", r.Ops, maxFloorProbes)
	}
	return nil
}

// Reply is one line of JSON the mount sends back: any number of progress
// reports and lines, then one with Done set, holding the Result or the
// Error (one line, for the user).
type Reply struct {
	Progress json.RawMessage `json:"progress,omitempty"`
	Line     string          `json:"line,omitempty"`
	Warning  bool            `json:"warning,omitempty"` // Line is a warning
	Done     bool            `json:"done,omitempty"`
	Result   json.RawMessage `json:"result,omitempty"`
	Error    string          `json:"error,omitempty"`
}

// A migration's progress reports are migrate.Event values, its result
// is the last of them (StageSwitch).

// Count is the progress and the result of rmr and clone: inodes done.
type Count struct {
	Inodes int64 `json:"inodes"`
}

// RestoreResult is what a restore did.
type RestoreResult struct {
	Restored int64 `json:"restored"`
	Skipped  int64 `json:"skipped"`
}

// Warmed is warmup's progress and result.
type Warmed struct {
	Files int64 `json:"files"`
	Bytes int64 `json:"bytes"`
}

// FloorTimes is floor's result: the wall time of all the probe writes and
// of all the probe reads of the volume's database (meta.MeasureFloor), or,
// for a floor request with a Path, of all the engine's listings of that
// directory and the entries one found (meta.MeasureListing). A mount of an
// older release ignores the Path and answers ListNs 0.
type FloorTimes struct {
	WriteNs     int64 `json:"write_ns,omitempty"`
	ReadNs      int64 `json:"read_ns,omitempty"`
	ListNs      int64 `json:"list_ns,omitempty"`
	ListEntries int   `json:"list_entries,omitempty"`
}
