package tests

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sparseFile makes a file of size bytes holding data only at its start and
// at its end.
func sparseFile(t *testing.T, path string, size int64, head, tail []byte) {
	t.Helper()
	f, err := os.Create(path)
	must(t, err, "create "+path)
	_, err = f.WriteAt(head, 0)
	must(t, err, "write the head of "+path)
	_, err = f.WriteAt(tail, size-int64(len(tail)))
	must(t, err, "write the tail of "+path)
	must(t, f.Close(), "close "+path)
}

// wantEnds checks the head and the tail of a file made by sparseFile.
func wantEnds(t *testing.T, path string, size int64, head, tail []byte) {
	t.Helper()
	f, err := os.Open(path)
	must(t, err, "open "+path)
	defer f.Close()
	fi, err := f.Stat()
	must(t, err, "stat "+path)
	if fi.Size() != size {
		t.Errorf("%s has %d bytes, want %d", path, fi.Size(), size)
	}
	got := make([]byte, len(head))
	_, err = f.ReadAt(got, 0)
	must(t, err, "read the head of "+path)
	if !bytes.Equal(got, head) {
		t.Errorf("the head of %s differs: %s", path, diffBytes(got, head))
	}
	got = make([]byte, len(tail))
	_, err = f.ReadAt(got, size-int64(len(tail)))
	must(t, err, "read the tail of "+path)
	if !bytes.Equal(got, tail) {
		t.Errorf("the tail of %s differs: %s", path, diffBytes(got, tail))
	}
}

// TestCloneTree clones a 10 GiB tree of sparse files through 'cairn
// clone': fast, no new object in the store, both copies read back after
// each is changed, the copy outlives its source (on a fresh cache, after
// gc --delete), and fsck finds nothing wrong.
func TestCloneTree(t *testing.T) {
	v := newVolume(t)
	const files, size = 10, int64(1 << 30)
	must(t, os.MkdirAll(v.path("d", "sub"), 0o755), "mkdir d/sub")
	heads, tails := map[string][]byte{}, map[string][]byte{}
	for i := range files {
		name := filepath.Join("d", "f"+strconv.Itoa(i))
		if i == files-1 {
			name = filepath.Join("d", "sub", "last")
		}
		heads[name], tails[name] = pattern(uint64(100+i), 300<<10), pattern(uint64(200+i), 5000)
		sparseFile(t, v.path(name), size, heads[name], tails[name])
	}
	must(t, os.Symlink("f0", v.path("d", "link")), "symlink")
	must(t, os.Chmod(v.path("d", "f1"), 0o600), "chmod")
	objects := bucketObjects(t, v)

	start := time.Now()
	if r := runCairnEnv(t, v.passwordEnv(), "clone", v.path("d"), v.path("e")); r.code != 0 {
		t.Fatalf("cairn clone: exit %d\nstderr: %s\nstdout: %s", r.code, r.stderr, r.stdout)
	}
	took := time.Since(start)
	t.Logf("'cairn clone' of %d files of %d GiB each (and 2 directories, 1 symlink) took %v, the command's start included", files, size>>30, took)
	if took > 5*time.Second {
		t.Errorf("the clone of a 10 GiB tree took %v", took)
	}
	if got := bucketObjects(t, v); got != objects {
		t.Errorf("the store holds %d objects after the clone, %d before", got, objects)
	}
	for name := range heads {
		wantEnds(t, v.path("e", strings.TrimPrefix(name, "d/")), size, heads[name], tails[name])
	}
	if target, err := os.Readlink(v.path("e", "link")); err != nil || target != "f0" {
		t.Errorf("readlink e/link: %q, %v; want f0", target, err)
	}
	st := lstat(t, v.path("e", "f1"))
	if st.Mode&0o7777 != 0o600 || st.Uid != uint32(os.Getuid()) {
		t.Errorf("e/f1 has mode %#o and owner %d, want 0600 and the caller's %d", st.Mode&0o7777, st.Uid, os.Getuid())
	}

	changed := []byte("changed in the copy")
	f, err := os.OpenFile(v.path("e", "f0"), os.O_WRONLY, 0)
	must(t, err, "open e/f0")
	_, err = f.WriteAt(changed, 10)
	must(t, err, "write e/f0")
	must(t, f.Close(), "close e/f0")
	must(t, os.Truncate(v.path("d", "f2"), 4096), "truncate d/f2")
	wantEnds(t, v.path("d", "f0"), size, heads["d/f0"], tails["d/f0"])
	wantEnds(t, v.path("e", "f2"), size, heads["d/f2"], tails["d/f2"])
	headE0 := append(append(append([]byte{}, heads["d/f0"][:10]...), changed...), heads["d/f0"][10+len(changed):]...)
	wantEnds(t, v.path("e", "f0"), size, headE0, tails["d/f0"])

	must(t, os.RemoveAll(v.path("d")), "rm -r d")
	v.unmount(t)
	cairnOK(t, v.urlArgs("gc", "--delete")...)
	cairnOK(t, v.urlArgs("fsck")...)
	v.mount(t) // a fresh block cache: what is read comes from the store
	wantEnds(t, v.path("e", "f0"), size, headE0, tails["d/f0"])
	for i := 1; i < files-1; i++ {
		name := "f" + strconv.Itoa(i)
		wantEnds(t, v.path("e", name), size, heads["d/"+name], tails["d/"+name])
	}
	wantEnds(t, v.path("e", "sub", "last"), size, heads["d/sub/last"], tails["d/sub/last"])
}

// TestCloneBadInput: a missing SRC, an existing DST and a DST on another
// mount each fail with one line, and change nothing.
func TestCloneBadInput(t *testing.T) {
	v := newVolume(t)
	writeFile(t, v.path("a"), []byte("a"))
	writeFile(t, v.path("b"), []byte("b"))
	other := filepath.Join(tempDir(t), "other")
	must(t, os.Mkdir(other, 0o755), "mkdir")
	if !singleProcess() { // a second mount of a Badger volume is refused
		v.mountAt(t, other)
	}
	wantUserError(t, runCairnEnv(t, v.passwordEnv(), "clone", v.path("missing"), v.path("c")), "missing", "no such file")
	wantUserError(t, runCairnEnv(t, v.passwordEnv(), "clone", v.path("a"), v.path("b")), "already exists")
	if !singleProcess() {
		wantUserError(t, runCairnEnv(t, v.passwordEnv(), "clone", v.path("a"), filepath.Join(other, "c")), "a clone stays inside one mount")
	}
	wantUserError(t, runCairnEnv(t, v.passwordEnv(), "clone", v.path("a"), filepath.Join(t.TempDir(), "c")), "not inside a cairn mount")
	wantContent(t, v.path("b"), []byte("b"))
	if _, err := os.Lstat(filepath.Join(other, "c")); !os.IsNotExist(err) {
		t.Errorf("a refused clone left %s/c: %v", other, err)
	}
}
