package meta

import (
	"encoding/hex"
	"errors"
	"math"
	"testing"
)

func TestAttrRecord(t *testing.T) {
	golden := Attr{Type: TypeDirectory, Mode: 02755, Uid: 1000, Gid: 65534, Rdev: 0x0801, Nlink: 3, Length: 4096,
		Atime: 1700000000123456789, Mtime: -1, Ctime: 7, Parent: 42}
	// The records volumes already hold: a change to either breaks them.
	stored := map[TimeLayout]string{
		TimesInNanoseconds: "0205ed000003e80000fffe0000080100000003000000000000100017979cfe3d85cd15" +
			"ffffffffffffffff0000000000000007000000000000002a",
		TimesInSeconds: "0205ed000003e80000fffe00000801000000030000000000001000000000006553f100075bcd15" +
			"ffffffffffffffff3b9ac9ff000000000000000000000007000000000000002a",
	}
	attrs := []Attr{
		golden,
		{},
		{Type: TypeFile, Mode: 07777, Uid: math.MaxUint32, Gid: math.MaxUint32, Rdev: math.MaxUint32, Nlink: math.MaxUint32,
			Length: math.MaxUint64, Atime: math.MaxInt64, Mtime: math.MinInt64 + 1e9, Ctime: -1e9, Parent: math.MaxUint64},
		{Type: TypeSymlink, Mode: 0777, Nlink: 1, Length: 11, Atime: 999999999, Mtime: 1e9, Ctime: -999999999},
	}
	for layout, want := range stored {
		b := AppendAttrRecord(nil, &golden, layout)
		if got := hex.EncodeToString(b); got != want {
			t.Errorf("layout %d: %s, want %s", layout, got, want)
		}
		for _, a := range attrs {
			b := AppendAttrRecord([]byte("prefix"), &a, layout)
			if len(b) != len("prefix")+AttrRecordSize(layout) || string(b[:6]) != "prefix" {
				t.Fatalf("layout %d: appended %d bytes to a prefix", layout, len(b)-6)
			}
			got, err := DecodeAttrRecord(b[6:], layout)
			if err != nil || got != a {
				t.Errorf("layout %d: %+v came back as %+v, %v", layout, a, got, err)
			}
			if _, err := DecodeAttrRecord(b[7:], layout); !errors.Is(err, ErrIO) {
				t.Errorf("layout %d: a short record decoded with %v, want ErrIO", layout, err)
			}
		}
	}
}

func TestSplitTime(t *testing.T) {
	cases := []struct{ ns, s, n int64 }{
		{0, 0, 0}, {1, 0, 1}, {1e9, 1, 0}, {1e9 + 5, 1, 5}, {-1, -1, 999999999}, {-1e9, -1, 0}, {-1e9 - 1, -2, 999999999},
		{math.MaxInt64, math.MaxInt64 / 1_000_000_000, math.MaxInt64 % 1_000_000_000},
	}
	for _, c := range cases {
		if s, n := SplitTime(c.ns); s != c.s || n != c.n {
			t.Errorf("SplitTime(%d) = %d, %d, want %d, %d", c.ns, s, n, c.s, c.n)
		}
	}
}
