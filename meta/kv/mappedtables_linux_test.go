package kv

import "testing"

func TestMappedTablesFindsTheDirectorysTables(t *testing.T) {
	m := &mappedTables{dir: "/data/vol"}
	cases := []struct {
		line       string
		start, end uintptr
		ok         bool
	}{
		{"7f0000000000-7f0000200000 r--s 00000000 fd:00 1234 /data/vol/000001.sst", 0x7f0000000000, 0x7f0000200000, true},
		{"7f0000000000-7f0000200000 rw-s 00000000 fd:00 1234 /data/vol/00001.mem", 0, 0, false},
		{"7f0000000000-7f0000200000 r--s 00000000 fd:00 1234 /data/other/000001.sst", 0, 0, false},
		{"7f0000000000-7f0000200000 r--s 00000000 fd:00 1234 /data/vol/sub/000001.sst", 0, 0, false},
		{"7f0000000000-7f0000200000 rw-p 00000000 00:00 0", 0, 0, false},
		{"zz-7f0000200000 r--s 00000000 fd:00 1234 /data/vol/000001.sst", 0, 0, false},
	}
	for _, c := range cases {
		start, end, ok := m.tableMapping(c.line)
		if start != c.start || end != c.end || ok != c.ok {
			t.Errorf("tableMapping(%q) = %x, %x, %v; want %x, %x, %v", c.line, start, end, ok, c.start, c.end, c.ok)
		}
	}
}
