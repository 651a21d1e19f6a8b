package meta

import (
	"errors"
	"reflect"
	"testing"
)

func TestCompactList(t *testing.T) {
	a := Slice{Pos: 0, ID: 1, Size: 10, Len: 10}
	b := Slice{Pos: 10, ID: 2, Size: 10, Len: 10}
	c := Slice{Pos: 5, ID: 3, Size: 10, Len: 10}
	hole := Slice{Pos: 0, Len: 20}
	s := Slice{Pos: 0, ID: 9, Size: 20, Len: 20}
	cases := []struct {
		name      string
		list, old []Slice
		want      []Slice
		err       error
	}{
		{"whole list", []Slice{a, b}, []Slice{a, b}, []Slice{s}, nil},
		{"prefix", []Slice{a, b, c}, []Slice{a, b}, []Slice{s, c}, nil},
		{"one record", []Slice{a, b}, []Slice{a}, []Slice{s, b}, nil},
		{"with a hole", []Slice{a, hole, b}, []Slice{a, hole}, []Slice{s, b}, nil},
		{"no records", []Slice{a, b}, nil, nil, ErrInvalid},
		{"empty list", nil, []Slice{a}, nil, ErrConflict},
		{"list shorter than old", []Slice{a}, []Slice{a, b}, nil, ErrConflict},
		{"not the prefix", []Slice{a, b}, []Slice{b}, nil, ErrConflict},
		{"wrong order", []Slice{a, b}, []Slice{b, a}, nil, ErrConflict},
		{"already compacted", []Slice{s, c}, []Slice{a, b}, nil, ErrConflict},
		{"record with another length", []Slice{a, b}, []Slice{{Pos: 0, ID: 1, Size: 10, Len: 9}}, nil, ErrConflict},
		{"record at another offset", []Slice{a, b}, []Slice{{Pos: 0, ID: 1, Size: 10, Off: 1, Len: 10}}, nil, ErrConflict},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := append([]Slice(nil), tc.list...)
			got, err := CompactList(tc.list, tc.old, s)
			if !errors.Is(err, tc.err) || (tc.err == nil && err != nil) {
				t.Fatalf("CompactList(%v, %v) error %v, want %v", tc.list, tc.old, err, tc.err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("CompactList(%v, %v) = %v, want %v", tc.list, tc.old, got, tc.want)
			}
			if !reflect.DeepEqual(before, tc.list) {
				t.Errorf("CompactList changed its input to %v", tc.list)
			}
		})
	}
}
