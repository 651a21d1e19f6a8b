package dump

import (
	"reflect"
	"strings"
	"testing"

	"cairn/meta"
)

// TestDecodeJSONLine: what the hand-written scanner accepts, what it
// refuses, and that a record owns its text once the line is reused.
func TestDecodeJSONLine(t *testing.T) {
	cases := []struct {
		line    string
		want    meta.DumpRecord
		wantErr string
	}{
		{line: `{"kind":"entry","parent":1,"name":"a\"b\\c\n\u00e9","ino":2,"type":"file"}`,
			want: meta.DumpRecord{Kind: meta.DumpEntry, Ino: 1, Name: "a\"b\\c\né", Child: 2, Type: meta.TypeFile}},
		{line: `{ "kind" : "entry" , "parent":1,"name":"","ino":2,"type":"dir" }`,
			want: meta.DumpRecord{Kind: meta.DumpEntry, Ino: 1, Name: "", Child: 2, Type: meta.TypeDirectory}},
		{line: `{"kind":"entry","parent":1,"name64":"/w==","ino":2,"type":"file"}`,
			want: meta.DumpRecord{Kind: meta.DumpEntry, Ino: 1, Name: "\xff", Child: 2, Type: meta.TypeFile}},
		{line: `{"kind":"inode","ino":5,"type":"dir","mode":"1777","uid":1,"gid":2,"rdev":0,"nlink":2,"length":4096,"atime":-1,"mtime":2,"ctime":3}`,
			want: meta.DumpRecord{Kind: meta.DumpInode, Ino: 5, Attr: meta.Attr{Type: meta.TypeDirectory, Mode: 01777, Uid: 1, Gid: 2, Nlink: 2, Length: 4096, Atime: -1, Mtime: 2, Ctime: 3}}},
		{line: `{"kind":"inode","ino":5,"type":"file","mode":"177777"}`,
			want: meta.DumpRecord{Kind: meta.DumpInode, Ino: 5, Attr: meta.Attr{Type: meta.TypeFile, Mode: 0xffff}}},
		{line: `{"kind":"chunk","ino":7,"index":3,"slices":[]}`,
			want: meta.DumpRecord{Kind: meta.DumpChunk, Ino: 7, Index: 3, Slices: []meta.Slice{}}},
		{line: `{"kind":"chunk","ino":7,"index":0,"slices":[[0,9,100,0,100],[1,0,0,0,5]]}`,
			want: meta.DumpRecord{Kind: meta.DumpChunk, Ino: 7, Slices: []meta.Slice{{ID: 9, Size: 100, Len: 100}, {Pos: 1, Len: 5}}}},
		{line: `{"kind":"xattr","ino":7,"name":"user.a","value":"AAE="}`,
			want: meta.DumpRecord{Kind: meta.DumpXattr, Ino: 7, Name: "user.a", Value: []byte{0, 1}}},
		{line: `{"kind":"inode","ino":5,"type":"file","mode":"0758"}`, wantErr: `mode "0758" is not an octal number`},
		{line: `{"kind":"inode","ino":5,"type":"file","mode":""}`, wantErr: `mode "" is not an octal number`},
		{line: `{"kind":"inode","ino":5,"type":"file","mode":"200000"}`, wantErr: `mode "200000" is not an octal number`},
		{line: `{"kind":"inode","type":"file","mode":"644"}`, wantErr: `inode record without "ino"`},
		{line: `{"kind":"entry","parent":1,"ino":2,"type":"file"}`, wantErr: `entry record without "name"`},
		{line: `{"kind":"entry","parent":1,"name":"x","ino":2,"type":"pipe"}`, wantErr: `unknown file type "pipe"`},
		{line: `{"kind":"chunk","ino":7,"index":0,"slices":[[0,9,4294967296,0,100]]}`, wantErr: "slice 0 of the chunk is out of range"},
		{line: `{"kind":"chunk","ino":7,"index":0,"slices":[[0,9,100,0]]}`, wantErr: "malformed JSON"},
		{line: `{"kind":"inode","ino":5,"colour":"red"}`, wantErr: `unknown field "colour"`},
		{line: `{"kind":"inode","ino":5}{}`, wantErr: "more than one JSON value"},
		{line: `{"kind":"inode","ino":-5}`, wantErr: "out of range"},
		{line: `{"kind":"end"}`, wantErr: `end record without "records"`},
	}
	for _, tc := range cases {
		line := []byte(tc.line)
		var rec meta.DumpRecord
		end, _, err := decodeJSONLine(line, &rec)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: error %v, want %q", tc.line, err, tc.wantErr)
			}
			continue
		}
		if err != nil || end {
			t.Errorf("%s: end %v, error %v", tc.line, end, err)
			continue
		}
		for i := range line {
			line[i] = '#' // the reader reuses its buffer for the next line
		}
		if !reflect.DeepEqual(rec, tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.line, rec, tc.want)
		}
	}
	end, n, err := decodeJSONLine([]byte(`{"kind":"end","records":12}`), &meta.DumpRecord{})
	if !end || n != 12 || err != nil {
		t.Errorf("end record: end %v, records %d, error %v", end, n, err)
	}
}
