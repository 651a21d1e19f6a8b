package dump

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"cairn/meta"
)

// sample is a small volume with one record of every kind, including names
// that are not UTF-8 and characters JSON must escape.
func sample() (meta.DumpHeader, []meta.DumpRecord) {
	h := meta.DumpHeader{
		Format:    meta.Format{Name: "vol", UUID: "u-1", Storage: "file", Bucket: "/b", BlockSize: 4 << 20, Compression: "none", Version: 1},
		NextInode: 10, NextSlice: 20, Usage: meta.Usage{Space: 8192, Inodes: 4},
	}
	recs := []meta.DumpRecord{
		{Kind: meta.DumpEntry, Ino: 1, Name: "f\"\\\n\xff", Child: 2, Type: meta.TypeFile},
		{Kind: meta.DumpInode, Ino: 1, Attr: meta.Attr{Type: meta.TypeDirectory, Mode: 01777, Nlink: 3, Length: 4096, Atime: -5, Mtime: 1, Ctime: 2, Parent: 1}},
		{Kind: meta.DumpInode, Ino: 2, Attr: meta.Attr{Type: meta.TypeFile, Mode: 04755, Uid: 7, Gid: 8, Nlink: 2, Length: 100, Atime: 123456789012345678, Mtime: 3, Ctime: 4}},
		{Kind: meta.DumpInode, Ino: 3, Attr: meta.Attr{Type: meta.TypeSymlink, Mode: 0777, Nlink: 1, Length: 3}},
		{Kind: meta.DumpInode, Ino: 9, Attr: meta.Attr{Type: meta.TypeCharDev, Mode: 0600, Rdev: 0x0103, Nlink: 1}},
		{Kind: meta.DumpEntry, Ino: 1, Name: "link", Child: 3, Type: meta.TypeSymlink},
		{Kind: meta.DumpEntry, Ino: 1, Name: "hard", Child: 2, Type: meta.TypeFile},
		{Kind: meta.DumpEntry, Ino: 1, Name: "null", Child: 9, Type: meta.TypeCharDev},
		{Kind: meta.DumpSymlink, Ino: 3, Target: "a\xfeb"},
		{Kind: meta.DumpXattr, Ino: 2, Name: "user.k", Value: []byte{0, 1, 2}},
		{Kind: meta.DumpXattr, Ino: 2, Name: "user.empty", Value: []byte{}},
		{Kind: meta.DumpChunk, Ino: 2, Index: 0, Slices: []meta.Slice{{Pos: 0, ID: 5, Size: 100, Off: 0, Len: 100}, {Pos: 10, ID: 0, Size: 0, Off: 0, Len: 5}}},
		{Kind: meta.DumpChunk, Ino: 2, Index: 3, Slices: []meta.Slice{{Pos: 7, ID: 19, Size: 50, Off: 10, Len: 40}}},
		{Kind: meta.DumpDeadSlice, Slice: meta.DeadSlice{ID: 6, Size: 4096}},
	}
	return h, recs
}

func write(t *testing.T, o Options, h meta.DumpHeader, recs []meta.DumpRecord) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Header(h); err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		if err := w.Record(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func readAll(data []byte) (meta.DumpHeader, []meta.DumpRecord, error) {
	r, err := NewReader(bytes.NewReader(data), "d")
	if err != nil {
		return meta.DumpHeader{}, nil, err
	}
	defer r.Close()
	var out []meta.DumpRecord
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return r.Header(), out, nil
		}
		if err != nil {
			return r.Header(), out, err
		}
		out = append(out, *rec)
	}
}

func TestRoundTrip(t *testing.T) {
	for _, o := range []Options{{}, {Binary: true}, {Compression: CompressGzip}, {Binary: true, Compression: CompressZstd}, {Compression: CompressZstd}} {
		t.Run(strings.TrimSpace(map[bool]string{true: "binary", false: "json"}[o.Binary]+" "+o.Compression), func(t *testing.T) {
			h, recs := sample()
			got, gotRecs, err := readAll(write(t, o, h, recs))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, h) {
				t.Errorf("header %+v, want %+v", got, h)
			}
			if !reflect.DeepEqual(gotRecs, recs) {
				t.Errorf("records\n%+v\nwant\n%+v", gotRecs, recs)
			}
		})
	}
}

func TestJSONIsDocumentedForm(t *testing.T) {
	h, recs := sample()
	text := string(write(t, Options{}, h, recs))
	for _, want := range []string{
		`{"cairn_dump":1,"format":{"name":"vol"`,
		`{"kind":"inode","ino":2,"type":"file","mode":"4755","uid":7,"gid":8,"rdev":0,"nlink":2,"length":100,"atime":123456789012345678,"mtime":3,"ctime":4,"parent":0}`,
		`{"kind":"entry","parent":1,"name64":"`,
		`{"kind":"entry","parent":1,"name":"hard","ino":2,"type":"file"}`,
		`{"kind":"chunk","ino":2,"index":0,"slices":[[0,5,100,0,100],[10,0,0,0,5]]}`,
		`{"kind":"dead_slice","id":6,"size":4096}`,
		`{"kind":"end","records":14}` + "\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("dump lacks %s:\n%s", want, text)
		}
	}
}

// TestBadInput: every damage is one line that names what is wrong.
func TestBadInput(t *testing.T) {
	h, recs := sample()
	json := write(t, Options{}, h, recs)
	bin := write(t, Options{Binary: true}, h, recs)
	lines := strings.SplitAfter(string(json), "\n")
	withLine := func(i int, s string) []byte {
		l := append([]string{}, lines...)
		l[i] = s
		return []byte(strings.Join(l, ""))
	}
	withHeader := func(h meta.DumpHeader) []byte { return write(t, Options{}, h, recs) }
	without := func(drop int) []byte {
		r := append(append([]meta.DumpRecord{}, recs[:drop]...), recs[drop+1:]...)
		return write(t, Options{}, h, r)
	}
	with := func(extra meta.DumpRecord) []byte { return write(t, Options{Binary: true}, h, append(recs, extra)) }
	flipped := append([]byte{}, bin...)
	flipped[len(flipped)/2] ^= 0x40
	lowInode, lowSlice := h, h
	lowInode.NextInode = 9
	lowSlice.NextSlice = 19
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "is empty"},
		{"foreign", []byte("#!/bin/sh\necho hi\n"), "not a cairn dump"},
		{"foreign JSON", []byte(`{"hello":1}` + "\n"), "not a cairn dump"},
		{"newer version", []byte(strings.Replace(string(json), `"cairn_dump":1`, `"cairn_dump":2`, 1)), "format version 2, newer"},
		{"newer binary", append([]byte(binaryMagic), 9), "format version 9, newer"},
		{"newer volume", []byte(strings.Replace(string(json), `"version":1`, `"version":5`, 1)), "volume has format version 5"},
		{"truncated at a line", json[:len(json)-len(lines[len(lines)-2])], "truncated"},
		{"truncated mid-line", json[:len(json)-30], "truncated"},
		{"truncated binary", bin[:len(bin)-9], "truncated"},
		{"corrupt line", withLine(3, "{\"kind\":\"inode\",\"ino\":\n"), "line 4 is damaged"},
		{"unknown kind", withLine(3, `{"kind":"wormhole"}`+"\n"), `unknown record kind "wormhole"`},
		{"corrupt binary", flipped, "damaged"},
		{"count mismatch", withLine(len(lines)-2, `{"kind":"end","records":3}`+"\n"), "counts 3 records"},
		{"data after the end", append(append([]byte{}, json...), lines[2]...), "data follows the end record"},
		{"missing inode", without(3), "inode 3 is named"},
		{"no root", without(1), "no root directory"},
		{"duplicate inode", with(recs[2]), "inode 2 appears twice"},
		{"bad name", with(meta.DumpRecord{Kind: meta.DumpEntry, Ino: 1, Name: "a/b", Child: 2, Type: meta.TypeFile}), "holds a '/'"},
		{"inode counter low", withHeader(lowInode), "next_inode 9 is not above inode 9"},
		{"slice counter low", withHeader(lowSlice), "next_slice 19 is not above slice 19"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := readAll(tc.data)
			if err == nil {
				t.Fatalf("read without error, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q, want one line with %q", err, tc.want)
			}
		})
	}
	if _, _, err := readAll(json); errors.Is(err, io.EOF) || err != nil {
		t.Fatalf("the undamaged dump: %v", err)
	}
}

func TestCompressionFor(t *testing.T) {
	for path, want := range map[string]string{"a.json": CompressNone, "a.gz": CompressGzip, "a.bin.zst": CompressZstd, "-": CompressNone} {
		if got := CompressionFor(path); got != want {
			t.Errorf("CompressionFor(%q) = %q, want %q", path, got, want)
		}
	}
}
