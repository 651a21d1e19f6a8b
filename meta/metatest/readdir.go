package metatest

import (
	"fmt"
	"sort"
	"testing"

	"cairn/meta"
)

func readdirTests() []test {
	return []test{
		{"Readdir/Empty", testReaddirEmpty},
		{"Readdir/Paging", testReaddirPaging},
		{"Readdir/Plus", testReaddirPlus},
		{"Readdir/ENOTDIR", testReaddirNotDir},
		{"Readdir/ChangesBetweenPages", testReaddirChanges},
		{"Readdir/Large", testReaddirLarge},
	}
}

func testReaddirEmpty(x *env) {
	d := x.mkdir(meta.RootIno, "d")
	ents, err := x.e.Readdir(x.ctx, d, "", 100, false)
	x.must(err, "Readdir")
	if len(ents) != 0 {
		x.t.Errorf("Readdir of an empty directory = %+v, want nothing (no \".\" or \"..\")", ents)
	}
	_, err = x.e.Readdir(x.ctx, 999999, "", 100, false)
	x.want(meta.ErrNotFound, err, "Readdir of a missing directory")
}

func testReaddirPaging(x *env) {
	d := x.mkdir(meta.RootIno, "d")
	names := []string{"a", "A", "a0", "ab", "aB", "b", "B", "z", "Z", "_", "-", "~", "0", "9", "a b", "aa", "aaa",
		"é", "e", "f", "日本", "\U0001F600", "x.txt", "x.TXT", "x", "y"}
	for i := 0; i < 40; i++ {
		names = append(names, fmt.Sprintf("n%03d", i))
	}
	inos := map[string]meta.Ino{}
	for i, n := range names {
		if i%5 == 0 {
			inos[n] = x.mkdir(d, n)
		} else {
			inos[n] = x.create(d, n)
		}
	}
	want := append([]string(nil), names...)
	sort.Strings(want) // Go compares strings byte by byte
	for _, limit := range []int{1, 2, 7, 1000} {
		var got []string
		after := ""
		for pages := 0; pages <= len(names)+1; pages++ {
			ents, err := x.e.Readdir(x.ctx, d, after, limit, false)
			x.must(err, "Readdir after %q limit %d", after, limit)
			if len(ents) == 0 {
				break
			}
			if len(ents) > limit {
				x.t.Errorf("Readdir with limit %d returned %d entries", limit, len(ents))
			}
			if len(ents) < limit && len(got)+len(ents) < len(want) {
				x.t.Errorf("Readdir with limit %d returned a short page of %d entries before the end", limit, len(ents))
			}
			for _, en := range ents {
				got = append(got, en.Name)
				if en.Ino != inos[en.Name] {
					x.t.Errorf("entry %q has inode %d, want %d", en.Name, en.Ino, inos[en.Name])
				}
				wantType := meta.TypeFile
				if x.attr(en.Ino).Type == meta.TypeDirectory {
					wantType = meta.TypeDirectory
				}
				if en.Type != wantType {
					x.t.Errorf("entry %q has type %d, want %d", en.Name, en.Type, wantType)
				}
			}
			after = ents[len(ents)-1].Name
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			x.t.Errorf("Readdir in pages of %d listed\n%q\nwant (byte order, each once)\n%q", limit, got, want)
		}
	}
	// after need not be an existing name.
	ents, err := x.e.Readdir(x.ctx, d, "n0055", 3, false)
	x.must(err, "Readdir after a name that does not exist")
	var got []string
	for _, en := range ents {
		got = append(got, en.Name)
	}
	i := sort.SearchStrings(want, "n0055")
	if fmt.Sprint(got) != fmt.Sprint(want[i:i+3]) {
		x.t.Errorf("Readdir after \"n0055\" = %q, want %q", got, want[i:i+3])
	}
	ents, err = x.e.Readdir(x.ctx, d, want[len(want)-1], 10, false)
	x.must(err, "Readdir after the last name")
	if len(ents) != 0 {
		x.t.Errorf("Readdir after the last name returned %d entries", len(ents))
	}
}

func testReaddirPlus(x *env) {
	d := x.mkdir(meta.RootIno, "d")
	f := x.create(d, "file")
	x.write(f, 0, 0, 12345)
	x.mkdir(d, "dir")
	x.symlink(d, "link", "file")
	_, err := x.e.Link(x.ctx, meta.RootCred, f, d, "hard")
	x.must(err, "Link")
	_, err = x.e.Mknod(x.ctx, meta.RootCred, d, "dev", x.newIno(), meta.TypeCharDev, 0600, 42, "")
	x.must(err, "Mknod char device")
	ents, err := x.e.Readdir(x.ctx, d, "", 100, true)
	x.must(err, "Readdir plus")
	if len(ents) != 5 {
		x.t.Fatalf("Readdir plus listed %d entries, want 5", len(ents))
	}
	for _, en := range ents {
		if en.Attr == nil {
			x.t.Errorf("Readdir plus: entry %q has no attributes", en.Name)
			continue
		}
		if g := x.attr(en.Ino); *en.Attr != g {
			x.t.Errorf("Readdir plus: entry %q carries %+v, GetAttr says %+v", en.Name, *en.Attr, g)
		}
		if en.Type != en.Attr.Type {
			x.t.Errorf("Readdir plus: entry %q has type %d but attributes of type %d", en.Name, en.Type, en.Attr.Type)
		}
	}
}

// A listing in pages goes on from a name that was removed meanwhile, and
// sees entries added behind its position.
func testReaddirChanges(x *env) {
	d := x.mkdir(meta.RootIno, "d")
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		x.create(d, n)
	}
	ents, err := x.e.Readdir(x.ctx, d, "", 3, false)
	x.must(err, "Readdir")
	if len(ents) != 3 || ents[2].Name != "c" {
		x.t.Fatalf("first page = %+v, want a b c", ents)
	}
	ino, _ := x.unlink(d, "c")
	x.release(ino)
	ino, _ = x.unlink(d, "d")
	x.release(ino)
	x.create(d, "cc")
	x.create(d, "0")
	ents, err = x.e.Readdir(x.ctx, d, "c", 10, false)
	x.must(err, "Readdir after a removed name")
	var got []string
	for _, en := range ents {
		got = append(got, en.Name)
	}
	if fmt.Sprint(got) != "[cc e f]" {
		x.t.Errorf("Readdir after the removed \"c\" = %q, want [cc e f]", got)
	}
}

func testReaddirNotDir(x *env) {
	f := x.create(meta.RootIno, "f")
	_, err := x.e.Readdir(x.ctx, f, "", 10, false)
	x.want(meta.ErrNotDir, err, "Readdir of a regular file")
}

// testReaddirLarge lists a directory of many entries in pages: every entry
// exactly once, in order, with and without attributes.
func testReaddirLarge(x *env) {
	n := 10000
	if testing.Short() {
		n = 1000
	}
	d := x.mkdir(meta.RootIno, "big")
	first, err := x.e.NextInodes(x.ctx, uint64(n))
	x.must(err, "NextInodes")
	for i := 0; i < n; i++ {
		_, err := x.e.Mknod(x.ctx, meta.RootCred, d, fmt.Sprintf("file-%06d", i), first+meta.Ino(i), meta.TypeFile, 0644, 0, "")
		x.must(err, "Mknod %d", i)
	}
	for _, plus := range []bool{false, true} {
		after, count := "", 0
		for {
			ents, err := x.e.Readdir(x.ctx, d, after, 1000, plus)
			x.must(err, "Readdir after %q", after)
			if len(ents) == 0 {
				break
			}
			for _, en := range ents {
				want := fmt.Sprintf("file-%06d", count)
				if en.Name != want || en.Ino != first+meta.Ino(count) {
					x.t.Fatalf("entry %d is %q (inode %d), want %q (inode %d)", count, en.Name, en.Ino, want, first+meta.Ino(count))
				}
				if plus && (en.Attr == nil || en.Attr.Type != meta.TypeFile || en.Attr.Nlink != 1) {
					x.t.Fatalf("entry %q: Readdir plus carries %+v", en.Name, en.Attr)
				}
				count++
			}
			after = ents[len(ents)-1].Name
		}
		if count != n {
			x.t.Errorf("Readdir (plus=%v) listed %d of %d entries", plus, count, n)
		}
	}
}
