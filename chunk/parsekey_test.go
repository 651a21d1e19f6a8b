package chunk

import "testing"

func TestParseKey(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want BlockKey
		ok   bool
	}{
		{blockKey(1, 0, 4096), BlockKey{1, 0, 4096}, true},
		{blockKey(123456789, 15, 4<<20), BlockKey{123456789, 15, 4 << 20}, true},
		{SliceKeys(77, 9<<20, 4<<20)[2], BlockKey{77, 2, 1 << 20}, true},
		{"chunks/0/0/1_0", BlockKey{}, false},
		{"chunks/0/0/x_0_5", BlockKey{}, false},
		{"chunks/0/0/1_-1_5", BlockKey{}, false},
		{"chunks/9/9/1_0_5", BlockKey{}, false}, // directories that do not match the id
		{"meta/backup-1", BlockKey{}, false},
		{"chunks/0/1_0_5", BlockKey{}, false},
		{"", BlockKey{}, false},
	} {
		got, ok := ParseKey(tc.key)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseKey(%q) = %+v, %v; want %+v, %v", tc.key, got, ok, tc.want, tc.ok)
		}
	}
}
