package redis

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"testing"

	"cairn/meta"
)

// TestRecordsLuaMatchGo hands records written by meta's codecs to the
// scripts' own unpacking (lib.lua) through a real redis-server and wants
// every field back as Go wrote it, and the attribute record packed again
// byte for byte: the layout the scripts read is the one meta writes.
func TestRecordsLuaMatchGo(t *testing.T) {
	e := formatted(t)
	body, err := os.ReadFile("testdata/records.lua")
	if err != nil {
		t.Fatal(err)
	}
	lib, _ := scriptFiles.ReadFile("scripts/lib.lua")
	e.scripts["recordstest"] = newScript("recordstest", string(lib)+string(body))
	ctx := context.Background()
	// Lua's numbers are exact below 2^53, which bounds what the scripts
	// may hold: lengths, inode and slice numbers, seconds.
	const exact = 1<<53 - 1
	attrs := []meta.Attr{
		{},
		{Type: meta.TypeDirectory, Mode: 02755, Uid: 1000, Gid: 65534, Rdev: 0x0801, Nlink: 3, Length: 4096,
			Atime: 1700000000123456789, Mtime: -1, Ctime: 7, Parent: 42},
		{Type: meta.TypeFile, Mode: 07777, Uid: 1<<32 - 1, Gid: 1<<32 - 1, Rdev: 1<<32 - 1, Nlink: 1<<32 - 1,
			Length: exact, Atime: 1<<63 - 1, Mtime: -1 << 63, Ctime: -999999999, Parent: exact},
		{Type: meta.TypeSymlink, Mode: 0777, Nlink: 1, Length: 11, Atime: 999999999, Mtime: 1e9, Ctime: -1e9},
	}
	slices := []meta.Slice{
		{}, {Pos: 1, ID: 2, Size: 3, Off: 4, Len: 5}, {Pos: 64<<20 - 1, Len: 1},
		{Pos: 1<<32 - 1, ID: exact, Size: 1<<32 - 1, Off: 1<<32 - 1, Len: 1<<32 - 1},
	}
	for i, a := range attrs {
		s := slices[i]
		rec := meta.AppendAttrRecord(nil, &a, meta.TimesInSeconds)
		r, err := e.call(ctx, "recordstest", meta.RootCred, rec, meta.AppendSliceRecord(nil, s))
		if err != nil {
			t.Fatal(err)
		}
		list := r.([]any)
		if got := list[0].(string); got != string(rec) {
			t.Errorf("attribute record %+v packed again by Lua as %x, want %x", a, got, rec)
		}
		var fields []string
		for _, f := range list[1:] {
			fields = append(fields, f.(string))
		}
		as, an := meta.SplitTime(a.Atime)
		ms, mn := meta.SplitTime(a.Mtime)
		cs, cn := meta.SplitTime(a.Ctime)
		var want []string
		for _, v := range []any{a.Type, a.Mode, a.Uid, a.Gid, a.Rdev, a.Nlink, a.Length, as, an, ms, mn, cs, cn, a.Parent,
			s.Pos, s.ID, s.Size, s.Off, s.Len} {
			want = append(want, fmt.Sprint(v))
		}
		if !reflect.DeepEqual(fields, want) {
			t.Errorf("records %+v and %+v read by Lua as %v, want %v", a, s, fields, want)
		}
	}
}
