package tests

import (
	"bytes"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// keptFile is what a restore must bring back: the bytes and every
// attribute but ctime.
type keptFile struct {
	data  []byte
	mode  uint32
	uid   uint32
	gid   uint32
	mtime syscall.Timespec
	xattr string
}

// makeKeptFile writes path with random bytes, an owner, a mode, an mtime
// and an xattr of its own.
func makeKeptFile(t *testing.T, path string, size int) keptFile {
	t.Helper()
	data := make([]byte, size)
	rand.Read(data)
	must(t, os.WriteFile(path, data, 0o644), "write "+path)
	must(t, os.Chown(path, 1001, 1002), "chown "+path)
	must(t, os.Chmod(path, 0o640), "chmod "+path)
	mtime := time.Date(2020, 5, 6, 7, 8, 9, 123456789, time.UTC)
	must(t, os.Chtimes(path, mtime, mtime), "chtimes "+path)
	must(t, unix.Setxattr(path, "user.kept", []byte(filepath.Base(path)), 0), "setxattr "+path)
	return readKeptFile(t, path)
}

func readKeptFile(t *testing.T, path string) keptFile {
	t.Helper()
	data, err := os.ReadFile(path)
	must(t, err, "read "+path)
	var st syscall.Stat_t
	must(t, syscall.Stat(path, &st), "stat "+path)
	buf := make([]byte, 256)
	n, err := unix.Getxattr(path, "user.kept", buf)
	must(t, err, "getxattr "+path)
	return keptFile{data: data, mode: st.Mode, uid: st.Uid, gid: st.Gid, mtime: st.Mtim, xattr: string(buf[:n])}
}

func (k keptFile) same(o keptFile) bool {
	return bytes.Equal(k.data, o.data) && k.mode == o.mode && k.uid == o.uid && k.gid == o.gid && k.mtime == o.mtime && k.xattr == o.xattr
}

// onMountOK runs a cairn command that finds the volume through a mount
// (which reports its URL without the password) and must succeed.
func (v *volume) onMountOK(t testing.TB, args ...string) string {
	t.Helper()
	r := runCairnEnv(t, v.passwordEnv(), args...)
	if r.code != 0 {
		t.Fatalf("cairn %s: exit %d\nstderr: %s\nstdout: %s", strings.Join(args, " "), r.code, r.stderr, r.stdout)
	}
	return r.stdout
}

// trashEntry finds the entry of the trash whose name ends in -name, and
// returns its path inside the mount.
func trashEntry(t *testing.T, v *volume, name string) string {
	t.Helper()
	hours, err := os.ReadDir(v.path(".trash"))
	must(t, err, "list .trash")
	for _, h := range hours {
		es, err := os.ReadDir(v.path(".trash", h.Name()))
		must(t, err, "list .trash/"+h.Name())
		for _, e := range es {
			if strings.HasSuffix(e.Name(), "-"+name) {
				return v.path(".trash", h.Name(), e.Name())
			}
		}
	}
	t.Fatalf("no entry for %q in .trash", name)
	return ""
}

// TestTrash: a deleted file, a file a rename replaced and an rmr'd tree
// are kept in .trash, count in the volume's usage, come back byte-exact
// with their attributes by 'cairn restore' (through the mount, and from
// the metadata URL), and are gone once 'cairn config --trash-days 0' has
// moved the volume's clock past them.
func TestTrash(t *testing.T) {
	needMount(t)
	if singleProcess() {
		t.Skipf("the %s engine serves one process at a time: status, dump and restore META-URL cannot open a mounted volume", engineName())
	}
	v := formatVolume(t, "--trash-days", "1")
	v.mount(t, "--entry-cache", "0", "--dir-entry-cache", "0", "--attr-cache", "0")
	must(t, os.MkdirAll(v.path("d"), 0o755), "mkdir d")
	must(t, os.MkdirAll(v.path("p"), 0o750), "mkdir p")
	must(t, os.MkdirAll(v.path("tree", "a", "b"), 0o755), "mkdir tree")
	f := makeKeptFile(t, v.path("d", "f"), 300<<10)
	victim := makeKeptFile(t, v.path("d", "victim"), 70<<10)
	q := makeKeptFile(t, v.path("p", "q"), 5000)
	deep := makeKeptFile(t, v.path("tree", "a", "b", "deep"), 9000)
	must(t, os.WriteFile(v.path("d", "new"), []byte("new"), 0o644), "write d/new")
	before := status(t, v.meta).Usage

	must(t, os.Remove(v.path("d", "f")), "rm d/f")
	must(t, os.Rename(v.path("d", "new"), v.path("d", "victim")), "rename d/new over d/victim")
	must(t, os.Remove(v.path("p", "q")), "rm p/q")
	must(t, os.Remove(v.path("p")), "rmdir p")
	v.onMountOK(t, "rmr", v.path("tree"))
	for _, gone := range []string{"d/f", "p", "tree"} {
		if _, err := os.Lstat(v.path(gone)); !os.IsNotExist(err) {
			t.Errorf("%s after its removal: %v, want ENOENT", gone, err)
		}
	}

	// The trash: hidden from the root's listing, reachable by name, its
	// space and inodes still counted, closed to writes and to other users.
	root, err := os.ReadDir(v.dir)
	must(t, err, "list the root")
	for _, e := range root {
		if e.Name() == ".trash" {
			t.Errorf("the root's listing shows .trash")
		}
	}
	after := status(t, v.meta).Usage
	if after.UsedSpace != before.UsedSpace || after.UsedInodes < before.UsedInodes+2 {
		t.Errorf("usage after the deletions = %+v, want the space of before (%+v) and its inodes plus the trash's folders", after, before)
	}
	// A dump of a volume with a trash loads (the trash's folders have
	// inode numbers of their own, far above the volume's next inode).
	dumpFile := filepath.Join(tempDir(t), "dump.json")
	cairnOK(t, "dump", v.meta, dumpFile)
	cairnOK(t, "load", newMetaURL(t), dumpFile)

	entryF := trashEntry(t, v, "f")
	hour := filepath.Dir(entryF)
	if err := os.WriteFile(filepath.Join(hour, "new"), nil, 0o644); !errors.Is(err, syscall.EPERM) {
		t.Errorf("create in a trash folder: %v, want EPERM", err)
	}
	if err := os.Mkdir(v.path(".trash", "x"), 0o755); !errors.Is(err, syscall.EPERM) {
		t.Errorf("mkdir in .trash: %v, want EPERM", err)
	}
	if got := asNobody(t, "readdir", v.path(".trash")); got != "EACCES" {
		t.Errorf("nobody lists .trash: %s, want EACCES", got)
	}
	if got := asNobody(t, "stat", entryF); got != "EACCES" {
		t.Errorf("nobody stats a trash entry: %s, want EACCES", got)
	}

	// Restore through the mount: f; q, which brings back p from the trash
	// first; the tree. victim's name is taken by the file that replaced
	// it: skipped, and restored once the name is free.
	v.onMountOK(t, "restore", entryF, trashEntry(t, v, "q"), trashEntry(t, v, "tree"))
	r := runCairn(t, "restore", v.meta, strings.TrimPrefix(trashEntry(t, v, "victim"), v.dir))
	if r.code == 0 || !strings.Contains(r.stdout, "skipped") {
		t.Errorf("restore over an existing name: exit %d, stdout %q; want a failure that names what it skipped", r.code, r.stdout)
	}
	must(t, os.Rename(v.path("d", "victim"), v.path("d", "newer")), "rename d/victim away")
	cairnOK(t, "restore", v.meta, strings.TrimPrefix(trashEntry(t, v, "victim"), v.dir))
	for path, want := range map[string]keptFile{"d/f": f, "d/victim": victim, "p/q": q, "tree/a/b/deep": deep} {
		if got := readKeptFile(t, v.path(path)); !got.same(want) {
			t.Errorf("restored %s differs: mode %o uid %d gid %d mtime %v xattr %q (%d bytes), want mode %o uid %d gid %d mtime %v xattr %q (%d bytes)",
				path, got.mode, got.uid, got.gid, got.mtime, got.xattr, len(got.data), want.mode, want.uid, want.gid, want.mtime, want.xattr, len(want.data))
		}
	}
	if fi, err := os.Stat(v.path("p")); err != nil || fi.Mode().Perm() != 0o750 {
		t.Errorf("restored p: %v, %v; want mode 0750", fi, err)
	}

	// Expiry: the volume's setting moves its clock past everything kept.
	must(t, os.Remove(v.path("d", "f")), "rm d/f again")
	gone := trashEntry(t, v, "f")
	out := cairnOK(t, "config", v.meta, "--trash-days", "0")
	if !strings.Contains(out, "removed") {
		t.Errorf("config --trash-days 0 says %q, want how many entries it removed", out)
	}
	if hours, err := os.ReadDir(v.path(".trash")); err != nil || len(hours) != 0 {
		t.Errorf(".trash after --trash-days 0 holds %v (%v), want nothing", hours, err)
	}
	if u := status(t, v.meta).Usage; u.UsedSpace >= after.UsedSpace {
		t.Errorf("usage after the purge %+v, want less space than with f kept (%+v)", u, after)
	}
	wantUserError(t, runCairnEnv(t, v.passwordEnv(), "restore", gone), gone)
	wantUserError(t, runCairn(t, "restore", v.meta, strings.TrimPrefix(gone, v.dir)), "trash")
}

// TestTrashBadInput: restore and rmr refuse, in one line and changing
// nothing, what they cannot act on.
func TestTrashBadInput(t *testing.T) {
	needMount(t)
	v := formatVolume(t, "--trash-days", "1")
	v.mount(t)
	must(t, os.WriteFile(v.path("f"), []byte("x"), 0o644), "write f")
	outside := tempDir(t)
	unformatted := newMetaURL(t)
	wantUserError(t, runCairn(t, "restore", unformatted, ".trash/2026-01-01-00"), "no cairn volume")
	wantUserError(t, runCairn(t, "restore", "redis://127.0.0.1:1/0", ".trash/2026-01-01-00"), "127.0.0.1:1")
	wantUserError(t, runCairn(t, "restore", outside), "not inside a cairn mount")
	wantUserError(t, runCairn(t, "restore", v.path("f")), "not an entry of the trash")
	wantUserError(t, runCairn(t, "restore", v.meta, "f"), "not an entry of the trash")
	wantUserError(t, runCairn(t, "rmr", outside), "not inside a cairn mount")
	wantUserError(t, runCairn(t, "rmr", v.dir), "root of its mount")
	wantUserError(t, runCairn(t, "rmr"), "PATH")
	if _, err := os.Stat(v.path("f")); err != nil {
		t.Errorf("f after the refused commands: %v", err)
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("the directory outside the mount after rmr refused it: %v", err)
	}
}

// TestTrashDaysDefault: a new volume keeps a trash of one day unless told.
func TestTrashDaysDefault(t *testing.T) {
	needBinary(t)
	metaURL := newMetaURL(t)
	cairnOK(t, "format", metaURL, "vol-a", "--bucket", filepath.Join(tempDir(t), "bucket"))
	if out := cairnOK(t, "config", metaURL); !strings.Contains(out, `"trash_days": 1,`) {
		t.Errorf("settings of a volume formatted without --trash-days: %s, want trash_days 1", out)
	}
}

// TestRenameOntoANameMadeElsewhere: a rename onto a name this mount holds
// as missing (every name of a directory it just made) that another mount
// made meanwhile replaces that file as rename(2) does, and the file goes
// to the trash, as any file a rename replaces.
func TestRenameOntoANameMadeElsewhere(t *testing.T) {
	needMount(t)
	v := formatVolume(t, "--trash-days", "1")
	// Names held missing for an hour: the test does not depend on speed.
	v.mount(t, "--entry-cache", "1h", "--dir-entry-cache", "1h")
	there := v.mountAt(t, tempDir(t)).Dir
	must(t, os.Mkdir(v.path("d"), 0o755), "mkdir d")
	must(t, os.WriteFile(filepath.Join(there, "d", "v"), []byte("theirs"), 0o644), "write d/v through the other mount")
	must(t, os.WriteFile(v.path("d", "tmp"), []byte("ours"), 0o644), "write d/tmp")
	must(t, os.Rename(v.path("d", "tmp"), v.path("d", "v")), "rename d/tmp onto d/v")
	if got, err := os.ReadFile(v.path("d", "v")); err != nil || string(got) != "ours" {
		t.Errorf("d/v after the rename: %q (%v), want %q", got, err, "ours")
	}
	if got, err := os.ReadFile(trashEntry(t, v, "v")); err != nil || string(got) != "theirs" {
		t.Errorf("the trash's copy of the replaced d/v: %q (%v), want %q", got, err, "theirs")
	}
}
