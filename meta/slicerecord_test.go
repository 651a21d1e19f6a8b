package meta

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"testing"
)

func TestSliceRecords(t *testing.T) {
	cases := []struct {
		name string
		list []Slice
		want []byte // nil: not checked byte for byte
	}{
		{"empty", []Slice{}, []byte{}},
		{"one", []Slice{{Pos: 1, ID: 2, Size: 3, Off: 4, Len: 5}},
			[]byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5}},
		{"hole", []Slice{{Pos: 10, Len: 20}}, nil},
		{"largest", []Slice{{Pos: math.MaxUint32, ID: math.MaxUint64, Size: math.MaxUint32, Off: math.MaxUint32, Len: math.MaxUint32}}, nil},
		{"several", []Slice{{Pos: 0, ID: 1 << 40, Size: 4 << 20, Len: 4 << 20}, {Pos: 7, Len: 1}, {Pos: 64<<20 - 1, ID: 3, Size: 9, Off: 8, Len: 1}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := EncodeSliceRecords(c.list)
			if len(b) != len(c.list)*SliceRecordSize {
				t.Fatalf("%d records encode to %d bytes", len(c.list), len(b))
			}
			if c.want != nil && !bytes.Equal(b, c.want) {
				t.Errorf("encoded %v as %v, want %v", c.list, b, c.want)
			}
			got, err := DecodeSliceRecords(b)
			if err != nil || !reflect.DeepEqual(got, c.list) {
				t.Errorf("round trip of %v gave %v, %v", c.list, got, err)
			}
			for i, s := range c.list {
				one, err := DecodeSliceRecord(b[i*SliceRecordSize : (i+1)*SliceRecordSize])
				if err != nil || one != s {
					t.Errorf("record %d decoded as %v, %v, want %v", i, one, err, s)
				}
			}
		})
	}
	for _, n := range []int{1, 23, 25, 47} {
		if _, err := DecodeSliceRecords(make([]byte, n)); !errors.Is(err, ErrIO) {
			t.Errorf("a list of %d bytes decoded with %v, want ErrIO", n, err)
		}
	}
	for _, n := range []int{0, 23, 48} {
		if _, err := DecodeSliceRecord(make([]byte, n)); !errors.Is(err, ErrIO) {
			t.Errorf("a record of %d bytes decoded with %v, want ErrIO", n, err)
		}
	}
}
