package main

import (
	"regexp"
	"strings"
	"testing"
)

func TestCheckFormatFlags(t *testing.T) {
	ok := formatFlags{storage: "file", blockSize: 4 << 20, compress: "none"}
	if err := checkFormatFlags("vol-1", &ok); err != nil {
		t.Fatalf("good flags refused: %v", err)
	}
	bad := []struct {
		name   string
		change func(*formatFlags)
		want   string
	}{
		{"ab", nil, "name"},
		{"Vol", nil, "name"},
		{"vol_1", nil, "name"},
		{"-vol", nil, "name"},
		{strings.Repeat("a", 64), nil, "name"},
		{"vol", func(f *formatFlags) { f.storage = "tape" }, "storage"},
		{"vol", func(f *formatFlags) { f.blockSize = 3 << 20 }, "block-size"},
		{"vol", func(f *formatFlags) { f.blockSize = 32 << 10 }, "block-size"},
		{"vol", func(f *formatFlags) { f.blockSize = 32 << 20 }, "block-size"},
		{"vol", func(f *formatFlags) { f.compress = "gzip" }, "compress"},
		{"vol", func(f *formatFlags) { f.trashDays = -1 }, "trash-days"},
	}
	for _, c := range bad {
		f := ok
		if c.change != nil {
			c.change(&f)
		}
		err := checkFormatFlags(c.name, &f)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("checkFormatFlags(%q, %+v) = %v, want an error about %s", c.name, f, err, c.want)
		}
	}
	for _, bs := range []byteSize{64 << 10, 1 << 20, 16 << 20} {
		f := ok
		f.blockSize = bs
		if err := checkFormatFlags("vol", &f); err != nil {
			t.Errorf("block size %d refused: %v", bs, err)
		}
	}
}

func TestNewUUID(t *testing.T) {
	re := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	a, err := newUUID()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := newUUID()
	if !re.MatchString(a) || a == b {
		t.Errorf("newUUID: %q and %q, want two different version-4 UUIDs", a, b)
	}
}
