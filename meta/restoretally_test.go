package meta

import (
	"reflect"
	"testing"
)

func TestRestoreTally(t *testing.T) {
	chunk := func(ids ...uint64) *DumpRecord {
		r := &DumpRecord{Kind: DumpChunk}
		for _, id := range ids {
			r.Slices = append(r.Slices, Slice{ID: id, Size: uint32(id * 10), Len: 1})
		}
		return r
	}
	file := func(length uint64) *DumpRecord {
		return &DumpRecord{Kind: DumpInode, Attr: Attr{Type: TypeFile, Length: length}}
	}
	dir := &DumpRecord{Kind: DumpInode, Attr: Attr{Type: TypeDirectory, Length: 4096}}
	tests := []struct {
		name    string
		records []*DumpRecord
		first   []uint64
		shared  map[uint64]uint64
		usage   Usage
	}{
		{name: "empty"},
		{name: "inodes", records: []*DumpRecord{dir, file(0), file(1), file(4096), file(4097)},
			usage: Usage{Inodes: 5, Space: 4096 + 4096 + 8192}},
		{name: "holes are no slices", records: []*DumpRecord{chunk(0, 0)}},
		{name: "each once", records: []*DumpRecord{chunk(1, 2), chunk(3)}, first: []uint64{1, 2, 3}},
		{name: "shared", records: []*DumpRecord{chunk(1, 2), chunk(2, 70000), chunk(2, 1)},
			first: []uint64{1, 2, 70000}, shared: map[uint64]uint64{1: 2, 2: 3}},
		{name: "twice in one chunk", records: []*DumpRecord{chunk(5, 5)}, first: []uint64{5}, shared: map[uint64]uint64{5: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tally := NewRestoreTally()
			var first []uint64
			for _, r := range tt.records {
				err := tally.Record(r, func(s Slice) error {
					if s.Size != uint32(s.ID*10) {
						t.Errorf("first(%d) has size %d", s.ID, s.Size)
					}
					first = append(first, s.ID)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			shared := map[uint64]uint64{}
			tally.Shared(func(s SharedSlice) error {
				if s.Size != uint32(s.ID*10) {
					t.Errorf("shared %d has size %d", s.ID, s.Size)
				}
				shared[s.ID] = s.Refs
				return nil
			})
			if len(first) != len(tt.first) || (len(first) > 0 && !reflect.DeepEqual(first, tt.first)) {
				t.Errorf("first = %v, want %v", first, tt.first)
			}
			if len(shared) != len(tt.shared) || (len(shared) > 0 && !reflect.DeepEqual(shared, tt.shared)) {
				t.Errorf("shared = %v, want %v", shared, tt.shared)
			}
			if tally.Usage() != tt.usage {
				t.Errorf("usage = %+v, want %+v", tally.Usage(), tt.usage)
			}
		})
	}
}
