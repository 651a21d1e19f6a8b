package metatest

import (
	"strings"

	"cairn/meta"
)

func nameTests() []test {
	return []test{
		{"Names/EINVAL", testNamesInvalid},
		{"Names/ENAMETOOLONG", testNamesTooLong},
		{"Names/AnyBytes", testNamesBytes},
		{"Names/CaseSensitive", testNamesCase},
	}
}

var badNames = []string{"", ".", "..", "a/b", "/", "a\x00b"}

// Every operation that makes a name refuses the ones Linux cannot store.
func testNamesInvalid(x *env) {
	f := x.create(meta.RootIno, "f")
	for _, name := range badNames {
		_, err := x.e.Mknod(x.ctx, meta.RootCred, meta.RootIno, name, x.newIno(), meta.TypeFile, 0644, 0, "")
		x.want(meta.ErrInvalid, err, "Mknod named %q", name)
		_, err = x.e.Mknod(x.ctx, meta.RootCred, meta.RootIno, name, x.newIno(), meta.TypeDirectory, 0755, 0, "")
		x.want(meta.ErrInvalid, err, "mkdir named %q", name)
		_, err = x.e.Link(x.ctx, meta.RootCred, f, meta.RootIno, name)
		x.want(meta.ErrInvalid, err, "Link named %q", name)
		_, _, _, err = x.e.Rename(x.ctx, meta.RootCred, meta.RootIno, "f", meta.RootIno, name, 0, x.sid)
		x.want(meta.ErrInvalid, err, "Rename to %q", name)
	}
	if n := x.names(meta.RootIno); len(n) != 1 || n[0] != "f" {
		x.t.Errorf("root lists %q after refused names, want [f]", n)
	}
	if a := x.attr(f); a.Nlink != 1 {
		x.t.Errorf("nlink %d after refused links, want 1", a.Nlink)
	}
}

func testNamesTooLong(x *env) {
	long := strings.Repeat("x", meta.MaxName)
	ino, _ := x.mknodAs(meta.RootCred, meta.RootIno, long, meta.TypeFile, 0644)
	if x.lookup(meta.RootIno, long) != ino {
		x.t.Errorf("Lookup of a %d-byte name found another inode", meta.MaxName)
	}
	longDir := strings.Repeat("d", meta.MaxName)
	x.mkdir(meta.RootIno, longDir)
	tooLong := long + "x"
	_, err := x.e.Mknod(x.ctx, meta.RootCred, meta.RootIno, tooLong, x.newIno(), meta.TypeFile, 0644, 0, "")
	x.want(meta.ErrNameTooLong, err, "Mknod with a %d-byte name", len(tooLong))
	_, err = x.e.Mknod(x.ctx, meta.RootCred, meta.RootIno, tooLong, x.newIno(), meta.TypeDirectory, 0755, 0, "")
	x.want(meta.ErrNameTooLong, err, "mkdir with a %d-byte name", len(tooLong))
	_, err = x.e.Link(x.ctx, meta.RootCred, ino, meta.RootIno, tooLong)
	x.want(meta.ErrNameTooLong, err, "Link with a %d-byte name", len(tooLong))
	_, _, _, err = x.e.Rename(x.ctx, meta.RootCred, meta.RootIno, long, meta.RootIno, tooLong, 0, x.sid)
	x.want(meta.ErrNameTooLong, err, "Rename to a %d-byte name", len(tooLong))
	_, _, err = x.e.Lookup(x.ctx, meta.RootIno, tooLong)
	x.want(meta.ErrNameTooLong, err, "Lookup of a %d-byte name", len(tooLong))
	// The limit is in bytes, not characters.
	runes := strings.Repeat("\U0001F600", 64) // 256 bytes
	_, err = x.e.Mknod(x.ctx, meta.RootCred, meta.RootIno, runes, x.newIno(), meta.TypeFile, 0644, 0, "")
	x.want(meta.ErrNameTooLong, err, "Mknod with a name of 64 four-byte characters (256 bytes)")
	x.mknodAs(meta.RootCred, meta.RootIno, runes[:252]+"abc", meta.TypeFile, 0644)
}

// Linux names are any bytes but '/' and NUL, valid UTF-8 or not.
func testNamesBytes(x *env) {
	names := []string{"\xff\xfe", "caf\xe9", "sp ace", "tab\tx", "new\nline", "\x01", "é", "日本語", "%", "'\"`;--"}
	inos := map[string]meta.Ino{}
	for _, n := range names {
		ino, _ := x.mknodAs(meta.RootCred, meta.RootIno, n, meta.TypeFile, 0644)
		inos[n] = ino
	}
	for _, n := range names {
		got, _, err := x.e.Lookup(x.ctx, meta.RootIno, n)
		if x.want(nil, err, "Lookup %q", n) && got != inos[n] {
			x.t.Errorf("Lookup %q = %d, want %d", n, got, inos[n])
		}
	}
	listed := x.names(meta.RootIno)
	if len(listed) != len(names) {
		x.t.Errorf("Readdir lists %d names, want %d: %q", len(listed), len(names), listed)
	}
	for _, n := range listed {
		if _, ok := inos[n]; !ok {
			x.t.Errorf("Readdir lists %q, which was never created (bytes altered?)", n)
		}
	}
}

func testNamesCase(x *env) {
	a, _ := x.mknodAs(meta.RootCred, meta.RootIno, "name", meta.TypeFile, 0644)
	b, _ := x.mknodAs(meta.RootCred, meta.RootIno, "NAME", meta.TypeFile, 0644)
	c, _ := x.mknodAs(meta.RootCred, meta.RootIno, "name ", meta.TypeFile, 0644)
	if a == b || x.lookup(meta.RootIno, "name") != a || x.lookup(meta.RootIno, "NAME") != b || x.lookup(meta.RootIno, "name ") != c {
		x.t.Errorf("names differing in case or trailing space are not distinct entries")
	}
	x.unlink(meta.RootIno, "NAME")
	x.release(b)
	if x.lookup(meta.RootIno, "name") != a {
		x.t.Errorf("unlinking \"NAME\" removed \"name\"")
	}
}
