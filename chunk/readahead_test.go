package chunk

import "testing"

func TestReadaheadSequential(t *testing.T) {
	r := newReadahead()
	for i, c := range []struct {
		id       uint64
		off, end uint32
		want     bool
	}{
		{1, 0, 100, true},              // start of a slice
		{1, 100, 200, true},            // continues
		{1, 300, 400, true},            // a request overtook its predecessor
		{1, 200, 300, true},            // the late one
		{1, 50 << 20, 51 << 20, false}, // a jump
		{1, 51 << 20, 52 << 20, true},  // sequential from there
		{1, 10 << 20, 11 << 20, false}, // a jump back
		{2, 5000, 6000, false},         // a slice first read in the middle
		{2, 6000, 7000, true},
	} {
		if got, _ := r.sequential(c.id, c.off, c.end); got != c.want {
			t.Errorf("read %d (slice %d [%d,%d)): sequential = %v, want %v", i, c.id, c.off, c.end, got, c.want)
		}
	}
}

// TestReadaheadRun checks that the run of a sequential reader grows with
// what it reads, survives requests that arrive out of order, and starts
// again after a jump or a new start of the slice.
func TestReadaheadRun(t *testing.T) {
	r := newReadahead()
	for i, c := range []struct {
		off, end uint32
		run      uint32
	}{
		{0, 100, 100},
		{100, 200, 200},
		{300, 400, 400}, // overtook the next one
		{200, 300, 400}, // the late one adds nothing
		{400, 1000, 1000},
		{50 << 20, 51 << 20, 1 << 20}, // a jump: not sequential, a new run
		{51 << 20, 52 << 20, 2 << 20},
		{0, 10, 10}, // read again from the start
	} {
		if _, got := r.sequential(1, c.off, c.end); got != c.run {
			t.Errorf("read %d [%d,%d): run %d, want %d", i, c.off, c.end, got, c.run)
		}
	}
}
