package tests

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestManyFiles creates 10,000 files in one directory and lists them all.
func TestManyFiles(t *testing.T) {
	v := newVolume(t)
	dir := v.path("many")
	must(t, os.Mkdir(dir, 0o755), "mkdir")
	n := 10000
	if testing.Short() {
		n = 1000
	}
	want := make([]string, n)
	for i := range n {
		want[i] = fmt.Sprintf("file-%05d", i)
		fd, err := unix.Open(dir+"/"+want[i], unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY, 0o644)
		if err != nil {
			t.Fatalf("create %s: %v", want[i], err)
		}
		unix.Close(fd)
	}
	list := func(what string) {
		f, err := os.Open(dir)
		must(t, err, "open dir")
		defer f.Close()
		// Small batches force many readdir calls with offsets.
		var got []string
		for {
			names, err := f.Readdirnames(100)
			got = append(got, names...)
			if err != nil || len(names) == 0 {
				break
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			missing, extra := 0, 0
			for _, w := range want {
				if _, ok := slices.BinarySearch(got, w); !ok {
					missing++
				}
			}
			for _, g := range got {
				if _, ok := slices.BinarySearch(want, g); !ok {
					extra++
				}
			}
			t.Fatalf("%s: listed %d names, want %d (%d missing, %d unexpected, duplicates %v)", what, len(got), len(want), missing, extra, len(slices.Compact(got)) != len(got))
		}
	}
	list("listing")
	// Every entry is a regular file to lstat as well (readdirplus path).
	entries, err := os.ReadDir(dir)
	must(t, err, "readdir")
	for _, e := range entries {
		if !e.Type().IsRegular() {
			t.Fatalf("%s has type %v in readdir", e.Name(), e.Type())
		}
	}
	// Removing every other file leaves exactly the rest.
	for i := 0; i < n; i += 2 {
		must(t, unix.Unlink(dir+"/"+want[i]), "unlink")
	}
	var rest []string
	for i := 1; i < n; i += 2 {
		rest = append(rest, want[i])
	}
	want = rest
	list("listing after removing half")
	v.remount(t)
	list("listing after remount")
}

func TestLinkCounts(t *testing.T) {
	v := newVolume(t)
	nlink := func(p string) uint64 { st := lstat(t, p); return st.Nlink }

	root := nlink(v.path())
	must(t, os.Mkdir(v.path("d"), 0o755), "mkdir")
	if got := nlink(v.path("d")); got != 2 {
		t.Errorf("new directory nlink %d, want 2", got)
	}
	if got := nlink(v.path()); got != root+1 {
		t.Errorf("root nlink after mkdir %d, want %d", got, root+1)
	}
	for _, sub := range []string{"a", "b", "c"} {
		must(t, os.Mkdir(v.path("d", sub), 0o755), "mkdir sub")
	}
	writeFile(t, v.path("d", "file"), []byte("x"))
	if got := nlink(v.path("d")); got != 5 {
		t.Errorf("directory with 3 subdirectories and a file: nlink %d, want 5", got)
	}
	must(t, os.Remove(v.path("d", "c")), "rmdir")
	if got := nlink(v.path("d")); got != 4 {
		t.Errorf("after rmdir: nlink %d, want 4", got)
	}
	// Moving a directory to another parent moves its ".." link.
	must(t, os.Mkdir(v.path("e"), 0o755), "mkdir e")
	must(t, unix.Rename(v.path("d", "b"), v.path("e", "b")), "rename dir")
	if d, e := nlink(v.path("d")), nlink(v.path("e")); d != 3 || e != 3 {
		t.Errorf("after moving a directory: nlink %d and %d, want 3 and 3", d, e)
	}

	// Hard links.
	f := v.path("d", "file")
	must(t, os.Link(f, v.path("e", "link1")), "link")
	must(t, os.Link(f, v.path("link2")), "link")
	if got := nlink(f); got != 3 {
		t.Errorf("file with 3 names: nlink %d, want 3", got)
	}
	a, b := lstat(t, f), lstat(t, v.path("link2"))
	if a.Ino != b.Ino {
		t.Errorf("hard links have inodes %d and %d", a.Ino, b.Ino)
	}
	writeFile(t, v.path("link2"), []byte("through a link"))
	wantContent(t, f, []byte("through a link"))
	must(t, os.Remove(f), "unlink")
	if got := nlink(v.path("e", "link1")); got != 2 {
		t.Errorf("after one unlink: nlink %d, want 2", got)
	}
	wantContent(t, v.path("e", "link1"), []byte("through a link"))
	// Rename over a hard link of the same file does nothing (POSIX).
	must(t, unix.Rename(v.path("link2"), v.path("e", "link1")), "rename onto own link")
	if _, err := os.Lstat(v.path("link2")); err != nil {
		t.Errorf("rename onto a link of the same inode removed the source: %v", err)
	}
	wantErrno(t, os.Link(v.path("d"), v.path("dirlink")), unix.EPERM, "hard link to a directory")
	wantErrno(t, os.Link(v.path("link2"), v.path("e", "link1")), unix.EEXIST, "link over an existing name")
	wantErrno(t, os.Link(v.path("missing"), v.path("x")), unix.ENOENT, "link to a missing file")

	v.remount(t)
	if got := nlink(v.path("link2")); got != 2 {
		t.Errorf("after remount: nlink %d, want 2", got)
	}
	if got := nlink(v.path("d")); got != 3 {
		t.Errorf("after remount: directory nlink %d, want 3", got)
	}
}

func TestRename(t *testing.T) {
	v := newVolume(t)
	p := v.path

	// Over an existing file: the target's old inode is gone.
	writeFile(t, p("a"), []byte("A"))
	writeFile(t, p("b"), []byte("B"))
	ino := lstat(t, p("a")).Ino
	must(t, unix.Rename(p("a"), p("b")), "rename over file")
	wantContent(t, p("b"), []byte("A"))
	if got := lstat(t, p("b")).Ino; got != ino {
		t.Errorf("renamed file has inode %d, want %d", got, ino)
	}
	if _, err := os.Lstat(p("a")); !os.IsNotExist(err) {
		t.Errorf("source still there: %v", err)
	}
	// A directory over an empty directory.
	must(t, os.MkdirAll(p("d1", "sub"), 0o755), "mkdir")
	must(t, os.Mkdir(p("d2"), 0o755), "mkdir")
	must(t, unix.Rename(p("d1"), p("d2")), "rename dir over empty dir")
	if _, err := os.Stat(p("d2", "sub")); err != nil {
		t.Errorf("moved directory's child: %v", err)
	}
	// Errors, as Linux gives them.
	must(t, os.Mkdir(p("full"), 0o755), "mkdir")
	writeFile(t, p("full", "x"), nil)
	must(t, os.Mkdir(p("empty"), 0o755), "mkdir")

	wantErrno(t, unix.Rename(p("d2"), p("full")), unix.ENOTEMPTY, "directory over a non-empty directory")
	wantErrno(t, unix.Rename(p("b"), p("empty")), unix.EISDIR, "file over a directory")
	wantErrno(t, unix.Rename(p("empty"), p("b")), unix.ENOTDIR, "directory over a file")
	wantErrno(t, unix.Rename(p("d2"), p("d2", "sub", "inside")), unix.EINVAL, "directory into itself")
	wantErrno(t, unix.Rename(p("missing"), p("x")), unix.ENOENT, "missing source")
	wantErrno(t, unix.Rename(p("b"), p("nodir", "x")), unix.ENOENT, "into a missing directory")
	wantErrno(t, unix.Rename(p("b"), p("b", "x")), unix.ENOTDIR, "below a file")
	// Into another directory and back, keeping content.
	must(t, unix.Rename(p("b"), p("d2", "sub", "moved")), "rename across directories")
	wantContent(t, p("d2", "sub", "moved"), []byte("A"))

	// renameat2 flags.
	writeFile(t, p("x"), []byte("X"))
	writeFile(t, p("y"), []byte("Y"))
	err := unix.Renameat2(unix.AT_FDCWD, p("x"), unix.AT_FDCWD, p("y"), unix.RENAME_NOREPLACE)
	wantErrno(t, err, unix.EEXIST, "RENAME_NOREPLACE over an existing file")
	wantContent(t, p("y"), []byte("Y"))
	must(t, unix.Renameat2(unix.AT_FDCWD, p("x"), unix.AT_FDCWD, p("z"), unix.RENAME_NOREPLACE), "RENAME_NOREPLACE to a new name")
	wantContent(t, p("z"), []byte("X"))

	xi, di := lstat(t, p("z")).Ino, lstat(t, p("empty")).Ino
	must(t, unix.Renameat2(unix.AT_FDCWD, p("z"), unix.AT_FDCWD, p("empty"), unix.RENAME_EXCHANGE), "RENAME_EXCHANGE file and directory")
	if a, b := lstat(t, p("z")), lstat(t, p("empty")); a.Ino != di || b.Ino != xi || a.Mode&unix.S_IFMT != unix.S_IFDIR || b.Mode&unix.S_IFMT != unix.S_IFREG {
		t.Errorf("after RENAME_EXCHANGE: z is inode %d (mode %o), empty is %d (mode %o); want %d dir and %d file", a.Ino, a.Mode, b.Ino, b.Mode, di, xi)
	}
	wantContent(t, p("empty"), []byte("X"))
	err = unix.Renameat2(unix.AT_FDCWD, p("y"), unix.AT_FDCWD, p("nothing"), unix.RENAME_EXCHANGE)
	wantErrno(t, err, unix.ENOENT, "RENAME_EXCHANGE with a missing target")
	err = unix.Renameat2(unix.AT_FDCWD, p("y"), unix.AT_FDCWD, p("z"), unix.RENAME_EXCHANGE|unix.RENAME_NOREPLACE)
	wantErrno(t, err, unix.EINVAL, "RENAME_EXCHANGE|RENAME_NOREPLACE")

	v.remount(t)
	wantContent(t, p("empty"), []byte("X"))
	wantContent(t, p("d2", "sub", "moved"), []byte("A"))
}

func TestNameLimits(t *testing.T) {
	v := newVolume(t)
	long := strings.Repeat("n", 255)
	tooLong := strings.Repeat("n", 256)

	writeFile(t, v.path(long), []byte("ok"))
	wantContent(t, v.path(long), []byte("ok"))
	must(t, os.Mkdir(v.path("d"+long[1:]), 0o755), "mkdir with a 255-byte name")
	names, err := os.ReadDir(v.path())
	must(t, err, "readdir")
	if len(names) != 2 {
		t.Errorf("readdir lists %d entries, want 2", len(names))
	}
	wantErrno(t, os.WriteFile(v.path(tooLong), nil, 0o644), unix.ENAMETOOLONG, "create with a 256-byte name")
	wantErrno(t, os.Mkdir(v.path(tooLong), 0o755), unix.ENAMETOOLONG, "mkdir with a 256-byte name")
	wantErrno(t, unix.Rename(v.path(long), v.path(tooLong)), unix.ENAMETOOLONG, "rename to a 256-byte name")
	wantErrno(t, os.Symlink("x", v.path(tooLong)), unix.ENAMETOOLONG, "symlink with a 256-byte name")
	wantErrno(t, os.Link(v.path(long), v.path(tooLong)), unix.ENAMETOOLONG, "link with a 256-byte name")
	_, err = os.Lstat(v.path(tooLong))
	wantErrno(t, err, unix.ENAMETOOLONG, "lookup of a 256-byte name")
	// A multi-byte UTF-8 name counts bytes: 85 three-byte runes are 255.
	utf := strings.Repeat("€", 85)
	writeFile(t, v.path(utf), nil)
	wantErrno(t, os.WriteFile(v.path(utf+"x"), nil, 0o644), unix.ENAMETOOLONG, "create with a 256-byte UTF-8 name")
}

func TestSymlinks(t *testing.T) {
	v := newVolume(t)
	// The longest target Linux passes to a file system: PATH_MAX including
	// its terminating NUL, so 4095 bytes.
	target := strings.Repeat("a/", 2047) + "b"
	must(t, os.Symlink(target, v.path("long")), "symlink with a 4095-byte target")
	got, err := os.Readlink(v.path("long"))
	must(t, err, "readlink")
	if got != target {
		t.Errorf("readlink returned %d bytes, want the %d-byte target", len(got), len(target))
	}
	if st := lstat(t, v.path("long")); st.Size != int64(len(target)) || st.Mode&unix.S_IFMT != unix.S_IFLNK {
		t.Errorf("lstat: size %d mode %o, want %d and a symlink", st.Size, st.Mode, len(target))
	}
	wantErrno(t, os.Symlink(target+"c", v.path("toolong")), unix.ENAMETOOLONG, "symlink with a 4096-byte target")

	// Relative and absolute symlinks resolve; loops fail with ELOOP.
	must(t, os.Mkdir(v.path("dir"), 0o755), "mkdir")
	writeFile(t, v.path("dir", "f"), []byte("via link"))
	must(t, os.Symlink("dir/f", v.path("rel")), "symlink")
	must(t, os.Symlink(v.path("dir"), v.path("abs")), "symlink")
	wantContent(t, v.path("rel"), []byte("via link"))
	wantContent(t, v.path("abs", "f"), []byte("via link"))
	must(t, os.Symlink("loop2", v.path("loop1")), "symlink")
	must(t, os.Symlink("loop1", v.path("loop2")), "symlink")
	_, err = os.ReadFile(v.path("loop1"))
	wantErrno(t, err, unix.ELOOP, "open a symlink loop")
	_, err = os.Readlink(v.path("dir", "f"))
	wantErrno(t, err, unix.EINVAL, "readlink of a regular file")
	wantErrno(t, os.Symlink("x", v.path("rel")), unix.EEXIST, "symlink over an existing name")

	v.remount(t)
	got, err = os.Readlink(v.path("long"))
	if err != nil || got != target {
		t.Errorf("after remount: readlink %d bytes, %v", len(got), err)
	}
}

func TestSpecialFiles(t *testing.T) {
	v := newVolume(t)
	must(t, unix.Mkfifo(v.path("fifo"), 0o644), "mkfifo")
	must(t, unix.Mknod(v.path("sock"), unix.S_IFSOCK|0o644, 0), "mknod socket")
	must(t, unix.Mknod(v.path("chr"), unix.S_IFCHR|0o644, int(unix.Mkdev(1, 3))), "mknod char device")
	must(t, unix.Mknod(v.path("blk"), unix.S_IFBLK|0o644, int(unix.Mkdev(7, 0))), "mknod block device")
	must(t, unix.Mknod(v.path("reg"), unix.S_IFREG|0o644, 0), "mknod regular file")
	check := func(what string) {
		for _, c := range []struct {
			name string
			typ  uint32
			rdev uint64
		}{
			{"fifo", unix.S_IFIFO, 0}, {"sock", unix.S_IFSOCK, 0}, {"chr", unix.S_IFCHR, unix.Mkdev(1, 3)},
			{"blk", unix.S_IFBLK, unix.Mkdev(7, 0)}, {"reg", unix.S_IFREG, 0},
		} {
			st := lstat(t, v.path(c.name))
			if st.Mode&unix.S_IFMT != c.typ || st.Rdev != c.rdev {
				t.Errorf("%s: %s: mode %o rdev %#x, want type %o rdev %#x", what, c.name, st.Mode, st.Rdev, c.typ, c.rdev)
			}
		}
	}
	check("after mknod")
	wantErrno(t, unix.Mkfifo(v.path("fifo"), 0o644), unix.EEXIST, "mkfifo over an existing name")
	v.remount(t)
	check("after remount")
}
