package meta_test

import (
	"testing"

	"cairn/meta"
)

// TestTrackerHoldKeepsReplacedOpen: an engine held (a migrator running in
// the mount's process, which reads SRC's log after the switch) is not
// closed by the CloseReplaced of the swap that left it, but by the last
// release; an engine nobody holds any more is closed by CloseReplaced.
func TestTrackerHoldKeepsReplacedOpen(t *testing.T) {
	ctx := t.Context()
	for _, tc := range []struct {
		name           string
		releaseBefore  bool // the holder is done before the swap
		closedByCloser bool
	}{
		{name: "held through the swap", releaseBefore: false, closedByCloser: false},
		{name: "released before the swap", releaseBefore: true, closedByCloser: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := &heldReads{Engine: trackerVolume(t, "src")}
			tr := meta.NewTracker(src)
			held, release := tr.Hold()
			if held != meta.Engine(src) {
				t.Fatalf("Hold returned %T, not the tracker's engine", held)
			}
			if tc.releaseBefore {
				must(struct{}{}, release())(t)
			}
			must(struct{}{}, tr.Pause(ctx))(t)
			must(tr.Swap(trackerVolume(t, "dst")))(t)
			tr.Resume()
			must(struct{}{}, tr.CloseReplaced())(t)
			if src.closed.Load() != tc.closedByCloser {
				t.Fatalf("after CloseReplaced: closed %v, want %v", src.closed.Load(), tc.closedByCloser)
			}
			must(struct{}{}, release())(t)
			if !src.closed.Load() {
				t.Error("the replaced engine is still open after the last release")
			}
		})
	}
}
