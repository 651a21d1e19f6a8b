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
		if got := r.sequential(c.id, c.off, c.end); got != c.want {
			t.Errorf("read %d (slice %d [%d,%d)): sequential = %v, want %v", i, c.id, c.off, c.end, got, c.want)
		}
	}
}
