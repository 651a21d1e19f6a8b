package meta

import "testing"

func TestIDSet(t *testing.T) {
	s := NewIDSet(130)
	for _, id := range []uint64{0, 1, 63, 64, 129, 130, 1 << 40} {
		s.Add(id)
	}
	for _, tc := range []struct {
		id   uint64
		want bool
	}{
		{0, true}, {1, true}, {2, false}, {63, true}, {64, true}, {65, false},
		{128, false}, {129, true}, {130, false}, {1 << 40, false},
	} {
		if got := s.Has(tc.id); got != tc.want {
			t.Errorf("Has(%d) = %v, want %v", tc.id, got, tc.want)
		}
	}
}
