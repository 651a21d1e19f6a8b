package tests

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSubdirMount mounts one directory of a volume with --subdir: only
// what is under it is reachable, ".." in its root is its root, the
// virtual files live in its root, the volume's .trash does not show, df
// shows the volume's limits, and what is made there lands in the
// directory.
func TestSubdirMount(t *testing.T) {
	needMount(t)
	v := formatVolume(t, "--capacity", "3G", "--inodes", "5000", "--trash-days", "1")
	v.mount(t)
	must(t, os.MkdirAll(v.path("proj", "sub"), 0o755), "mkdir proj/sub")
	writeFile(t, v.path("proj", "a"), []byte("inside"))
	writeFile(t, v.path("outside"), []byte("outside"))
	writeFile(t, v.path("deleted"), []byte("into the trash"))
	must(t, os.Remove(v.path("deleted")), "remove deleted")
	projIno := lstat(t, v.path("proj")).Ino
	whole := statfs(t, v.dir)
	v.unmount(t)

	v.mount(t, "--subdir", "/proj")
	es, err := os.ReadDir(v.dir)
	must(t, err, "list the sub-directory mount's root")
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"a", "sub"}) {
		t.Errorf("the root of a --subdir /proj mount lists %q, want [a sub]", names)
	}
	wantContent(t, v.path("a"), []byte("inside"))
	for _, name := range []string{"outside", "proj", ".trash"} {
		if _, err := os.Lstat(v.path(name)); !errors.Is(err, syscall.ENOENT) {
			t.Errorf("stat %s in the sub-directory mount: %v, want ENOENT", name, err)
		}
	}
	if got := lstat(t, v.dir).Ino; got != projIno {
		t.Errorf("the mount's root has inode %d, want /proj's %d", got, projIno)
	}
	if up := dotDotIno(t, v.dir); up != projIno {
		t.Errorf("\"..\" in the mount's root lists inode %d, want the root itself (%d)", up, projIno)
	}
	if up := dotDotIno(t, v.path("sub")); up != projIno {
		t.Errorf("\"..\" in sub lists inode %d, want the mount's root (%d)", up, projIno)
	}

	var stats struct {
		MetaURL string `json:"meta_url"`
	}
	raw, err := os.ReadFile(v.path(".stats"))
	must(t, err, "read .stats in the sub-directory mount's root")
	must(t, json.Unmarshal(raw, &stats), "parse .stats")
	if stats.MetaURL == "" {
		t.Errorf(".stats in the sub-directory mount names no metadata URL:\n%s", raw)
	}
	if _, err := os.Lstat(v.path(".accesslog")); err != nil {
		t.Errorf("stat .accesslog in the sub-directory mount's root: %v", err)
	}
	if _, err := os.Lstat(v.path("sub", ".stats")); !errors.Is(err, syscall.ENOENT) {
		t.Errorf("stat sub/.stats: %v, want ENOENT (the virtual files live in the root only)", err)
	}

	got := statfs(t, v.dir)
	if got.Blocks*uint64(got.Bsize) != whole.Blocks*uint64(whole.Bsize) || got.Files != whole.Files {
		t.Errorf("df in the sub-directory mount: %d bytes, %d inodes; want the volume's %d bytes, %d inodes",
			got.Blocks*uint64(got.Bsize), got.Files, whole.Blocks*uint64(whole.Bsize), whole.Files)
	}

	writeFile(t, v.path("sub", "made-here"), []byte("made in the sub-directory mount"))
	must(t, os.Rename(v.path("a"), v.path("sub", "a")), "rename a into sub")
	v.unmount(t)
	v.mount(t)
	wantContent(t, v.path("proj", "sub", "made-here"), []byte("made in the sub-directory mount"))
	wantContent(t, v.path("proj", "sub", "a"), []byte("inside"))
	wantContent(t, v.path("outside"), []byte("outside"))
}

// TestSubdirMountBadPath checks that a --subdir that is missing or not a
// directory fails the mount with one line.
func TestSubdirMountBadPath(t *testing.T) {
	needMount(t)
	v := formatVolume(t)
	v.mount(t)
	writeFile(t, v.path("file"), []byte("x"))
	v.unmount(t)
	cache := filepath.Join(tempDir(t), "cache")
	for _, c := range []struct{ subdir, want string }{
		{"/missing/dir", "does not exist"},
		{"/file", "/file in the volume is not a directory"},
	} {
		r := runCairn(t, append([]string{"mount", v.meta, v.dir, "-d", "--cache-dir", cache, "--subdir", c.subdir}, v.mountArgs...)...)
		if r.code == 0 {
			runCairn(t, "umount", v.dir)
		}
		wantUserError(t, r, c.subdir, c.want)
	}
}

// dotDotIno is the inode number the listing of dir gives "..", read with
// getdents64 (os.ReadDir leaves "." and ".." out).
func dotDotIno(t *testing.T, dir string) uint64 {
	t.Helper()
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	must(t, err, "open "+dir)
	defer unix.Close(fd)
	buf := make([]byte, 64<<10)
	for {
		n, err := unix.Getdents(fd, buf)
		must(t, err, "getdents "+dir)
		if n == 0 {
			t.Fatalf("the listing of %s has no \"..\"", dir)
		}
		for off := 0; off < n; {
			// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name.
			ino := binary.NativeEndian.Uint64(buf[off:])
			reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
			name := buf[off+19 : off+reclen]
			if i := slices.Index(name, 0); i >= 0 {
				name = name[:i]
			}
			if string(name) == ".." {
				return ino
			}
			off += reclen
		}
	}
}
