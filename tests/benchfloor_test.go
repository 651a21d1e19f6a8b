package tests

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// floorJSON is the part of 'cairn bench --floor --json' the test reads.
type floorJSON struct {
	MetaURL string `json:"meta_url"`
	Passes  []struct {
		Tasks int `json:"tasks"`
		Floor struct {
			WriteUs     float64 `json:"write_us"`
			ReadUs      float64 `json:"read_us"`
			ListUs      float64 `json:"list_us"`
			ListEntries int     `json:"list_entries"`
		} `json:"floor"`
		Rows []struct {
			Op         string             `json:"op"`
			Mutation   bool               `json:"mutation"`
			Floor      string             `json:"floor"`
			Us         float64            `json:"us"`
			FloorUs    float64            `json:"floor_us"`
			Ratio      float64            `json:"ratio"`
			RoundTrips float64            `json:"round_trips"`
			Requests   map[string]float64 `json:"fuse_requests"`
		} `json:"rows"`
	} `json:"passes"`
}

// TestBenchFloor runs the floor benchmark on a mount and checks that every
// operation has a time, a ratio computed from it and the floor probed on
// the volume's own database, and the round trips and FUSE requests the
// mount counted for it.
func TestBenchFloor(t *testing.T) {
	v := newVolume(t)
	// The probes run in the mount, through its control channel: no
	// password in the environment, and Badger, which one process opens at
	// a time, is measured too.
	out := cairnOK(t, "bench", v.dir, "--floor", "--ops", "20", "--threads", "2", "--json")
	var res floorJSON
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("no JSON (%v):\n%s", err, out)
	}
	if res.MetaURL == "" || !strings.HasPrefix(v.meta, strings.SplitN(res.MetaURL, "://", 2)[0]+"://") {
		t.Errorf("measured the floor of %q, want the volume's own %q", res.MetaURL, v.meta)
	}
	if len(res.Passes) != 2 || res.Passes[0].Tasks != 1 || res.Passes[1].Tasks != 2 {
		t.Fatalf("passes %+v, want one with 1 task and one with 2", res.Passes)
	}
	want := []string{"mkdir", "create", "write+fsync 4K", "stat", "lookup missing", "readdir", "rename", "unlink", "rmdir"}
	for _, p := range res.Passes {
		if p.Floor.WriteUs <= 0 || p.Floor.ReadUs <= 0 || p.Floor.ListUs <= 0 {
			t.Errorf("%d tasks: floor %+v, want positive times", p.Tasks, p.Floor)
		}
		// readdir lists a task's directory of 20 directories and 20
		// files; its floor is the engine's own listing of it.
		if p.Floor.ListEntries != 40 {
			t.Errorf("%d tasks: the floor's listing found %d entries, want 40", p.Tasks, p.Floor.ListEntries)
		}
		if len(p.Rows) != len(want) {
			t.Fatalf("%d tasks: %d rows, want %d", p.Tasks, len(p.Rows), len(want))
		}
		for i, r := range p.Rows {
			kind := "read"
			switch {
			case r.Mutation:
				kind = "write"
			case r.Op == "readdir":
				kind = "listing"
			}
			switch {
			case r.Op != want[i]:
				t.Errorf("row %d is %q, want %q", i, r.Op, want[i])
			case r.Floor != kind:
				t.Errorf("%d tasks, %s: compared with the %q floor, want %q", p.Tasks, r.Op, r.Floor, kind)
			case r.Op == "readdir" && r.FloorUs != p.Floor.ListUs:
				t.Errorf("%d tasks: readdir's floor %.1f µs is not the listing's %.1f µs", p.Tasks, r.FloorUs, p.Floor.ListUs)
			case r.Us <= 0 || r.FloorUs <= 0 || math.Abs(r.Ratio-r.Us/r.FloorUs) > 1e-9*r.Ratio:
				t.Errorf("%d tasks, %s: %.1f µs, ratio %.3f, floor %.1f µs", p.Tasks, r.Op, r.Us, r.Ratio, r.FloorUs)
			case r.Mutation && r.RoundTrips < 1:
				t.Errorf("%d tasks, %s: %.2f round trips, want at least the change itself", p.Tasks, r.Op, r.RoundTrips)
			}
		}
		// A mkdir is one MKDIR request, whatever else the kernel asks.
		if n := p.Rows[0].Requests["mkdir"]; n != 1 {
			t.Errorf("%d tasks: %v FUSE mkdir requests per mkdir, want 1 (all: %v)", p.Tasks, n, p.Rows[0].Requests)
		}
	}

	text := cairnOK(t, "bench", v.dir, "--floor", "--ops", "5", "--threads", "1")
	for _, w := range []string{"durable write", "listing of 10 entries", "OPERATION", "×floor", "rtt", "mkdir", "rmdir"} {
		if !strings.Contains(text, w) {
			t.Errorf("text output lacks %q:\n%s", w, text)
		}
	}
	if strings.Contains(text, "2T") {
		t.Errorf("--threads 1 ran a second pass:\n%s", text)
	}
}

// TestBenchFloorNotMounted: the floor benchmark on a directory that is not
// a cairn mount is one line that says so.
func TestBenchFloorNotMounted(t *testing.T) {
	wantUserError(t, runCairn(t, "bench", tempDir(t), "--floor"), "not on a cairn mount")
}
