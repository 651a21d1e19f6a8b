package tests

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"cairn/internal/testenv"

	"golang.org/x/sys/unix"
)

// snapshot records everything a remount must keep of a tree: type, mode,
// owner, size, nlink, inode, mtime, content, symlink target and xattrs.
func snapshot(t testing.TB, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		st := fi.Sys().(*syscall.Stat_t)
		desc := []string{fi.Mode().String(), strconv.Itoa(int(st.Uid)), strconv.Itoa(int(st.Gid)), strconv.Itoa(int(st.Nlink)),
			strconv.Itoa(int(st.Ino)), strconv.Itoa(int(st.Size)), time.Unix(st.Mtim.Sec, st.Mtim.Nsec).UTC().String()}
		switch {
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			desc = append(desc, string(b))
		case fi.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			desc = append(desc, "-> "+target)
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			buf := make([]byte, 4096)
			n, _ := unix.Listxattr(p, buf)
			names := strings.Split(string(buf[:n]), "\x00")
			slices.Sort(names)
			for _, name := range names {
				if name == "" {
					continue
				}
				val := make([]byte, 4096)
				m, _ := unix.Getxattr(p, name, val)
				desc = append(desc, name+"="+string(val[:max(m, 0)]))
			}
		}
		out[rel] = strings.Join(desc, " | ")
		return nil
	})
	must(t, err, "walk "+root)
	return out
}

// populate builds a small tree with every kind of inode and attribute.
func populate(t testing.TB, v *volume) {
	t.Helper()
	p := v.path
	must(t, os.MkdirAll(p("a", "b", "c"), 0o755), "mkdir")
	writeFile(t, p("a", "small"), []byte("small file"))
	writeFile(t, p("a", "b", "big"), pattern(21, 9<<20+17))
	must(t, os.Link(p("a", "small"), p("a", "b", "hardlink")), "link")
	must(t, os.Symlink("../small", p("a", "b", "symlink")), "symlink")
	must(t, unix.Mkfifo(p("a", "fifo"), 0o640), "mkfifo")
	must(t, os.Chown(p("a", "small"), 1234, 5678), "chown")
	must(t, unix.Chmod(p("a", "b"), 0o2750), "chmod")
	must(t, unix.Setxattr(p("a", "small"), "user.k", []byte("v"), 0), "setxattr")
	must(t, os.Chtimes(p("a", "b", "big"), time.Unix(1e9, 5), time.Unix(1.1e9, 7)), "chtimes")
	sparse, err := os.Create(p("sparse"))
	must(t, err, "create")
	_, err = sparse.WriteAt([]byte("end"), 100<<20)
	must(t, err, "write")
	must(t, sparse.Close(), "close")
}

// TestRemount checks that every byte and attribute survives unmount and
// mount, with the clean shutdown that Ctrl-C (SIGINT) or SIGTERM gives.
func TestRemount(t *testing.T) {
	v := newVolume(t)
	populate(t, v)
	before := snapshot(t, v.dir)
	// Ctrl-C, then SIGTERM: both unmount cleanly.
	if err := v.mnt.Stop(syscall.SIGINT); err != nil {
		t.Fatalf("Ctrl-C: %v; output:\n%s", err, v.mnt.Output())
	}
	v.mount(t)
	if got := snapshot(t, v.dir); len(got) != len(before) {
		t.Errorf("after Ctrl-C and mount: %d names, want %d", len(got), len(before))
	}
	v.remount(t)
	after := snapshot(t, v.dir)
	for k, want := range before {
		if got := after[k]; got != want {
			t.Errorf("%s after remount:\n got  %.300s\n want %.300s", k, got, want)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			t.Errorf("%s appeared after remount", k)
		}
	}
}

// TestFsyncSurvivesCrash kills the mount process without warning after an
// fsync: what fsync acknowledged must be there on the next mount.
func TestFsyncSurvivesCrash(t *testing.T) {
	v := newVolume(t)
	path := v.path("durable")
	data := pattern(31, 5<<20+3)
	f, err := os.Create(path)
	must(t, err, "create")
	_, err = f.Write(data)
	must(t, err, "write")
	must(t, f.Sync(), "fsync")
	must(t, os.Mkdir(v.path("dir"), 0o755), "mkdir")
	d, err := os.Open(v.path())
	must(t, err, "open root")
	must(t, d.Sync(), "fsync directory")
	d.Close()

	// SIGKILL: no flush, no clean unmount. The kernel keeps a dead mount.
	killMount(t, v)
	f.Close()
	testenv.ForceUnmount(t, v.dir)
	v.mount(t)
	wantContent(t, path, data)
	if fi, err := os.Stat(v.path("dir")); err != nil || !fi.IsDir() {
		t.Errorf("directory made before the crash: %v", err)
	}
}

// killMount ends the process serving v without letting it clean up.
func killMount(t testing.TB, v *volume) {
	t.Helper()
	if err := v.mnt.Kill(); err != nil {
		t.Fatalf("kill the mount: %v", err)
	}
}

// TestSecondMount mounts the volume twice (two processes on one database):
// each sees what the other wrote once the writer closed the file and the
// reader opens it (close-to-open).
func TestSecondMount(t *testing.T) {
	v := newVolume(t)
	other := filepath.Join(tempDir(t), "mnt2")
	must(t, os.Mkdir(other, 0o755), "mkdir")
	m2 := v.mountAt(t, other)
	q := func(elem ...string) string { return filepath.Join(append([]string{other}, elem...)...) }

	writeFile(t, v.path("from-a"), []byte("written by A"))
	wantContent(t, q("from-a"), []byte("written by A"))
	must(t, os.Mkdir(q("dir-from-b"), 0o755), "mkdir in B")
	writeFile(t, q("dir-from-b", "f"), pattern(41, 6<<20))
	wantContent(t, v.path("dir-from-b", "f"), pattern(41, 6<<20))

	// Overwrite in A, longer and then shorter, read in B after each close.
	for i, size := range []int{9 << 20, 1000, 1000, 3<<20 + 1, 3<<20 + 1} {
		data := pattern(uint64(50+i), size)
		writeFile(t, v.path("from-a"), data)
		wantContent(t, q("from-a"), data)
	}
	// Appends in B, read in A.
	f, err := os.OpenFile(q("from-a"), os.O_WRONLY|os.O_APPEND, 0)
	must(t, err, "open in B")
	_, err = f.Write([]byte("tail from B"))
	must(t, err, "append in B")
	must(t, f.Close(), "close in B")
	got := readFile(t, v.path("from-a"))
	if !bytes.HasSuffix(got, []byte("tail from B")) || len(got) != 3<<20+1+11 {
		t.Errorf("A reads %d bytes ending %q after B appended", len(got), got[max(len(got)-11, 0):])
	}
	// Renames and removals show on the other side.
	must(t, unix.Rename(v.path("from-a"), v.path("renamed")), "rename in A")
	if !eventually(5*time.Second, func() bool { _, err := os.Stat(q("renamed")); return err == nil }) {
		t.Errorf("B does not see A's rename")
	}
	must(t, os.Remove(q("renamed")), "remove in B")
	if !eventually(5*time.Second, func() bool { _, err := os.Stat(v.path("renamed")); return os.IsNotExist(err) }) {
		t.Errorf("A still sees a file B removed")
	}
	// Both clients are listed by status, and one unmount leaves the other.
	if st := status(t, v.meta); len(st.Sessions) != 2 {
		t.Errorf("status lists %d sessions, want 2", len(st.Sessions))
	}
	if err := m2.Unmount(); err != nil {
		t.Fatalf("unmount B: %v\n%s", err, m2.Output())
	}
	if st := status(t, v.meta); len(st.Sessions) != 1 {
		t.Errorf("after B unmounted, status lists %d sessions, want 1", len(st.Sessions))
	}
	wantContent(t, v.path("dir-from-b", "f"), pattern(41, 6<<20))
}

// TestStatfs checks that statfs and df report the real usage.
func TestStatfs(t *testing.T) {
	v := newVolume(t)
	st0 := statfs(t, v.dir)
	if st0.Bsize == 0 || st0.Blocks == 0 || st0.Bavail > st0.Blocks || st0.Bfree > st0.Blocks || st0.Namelen != 255 {
		t.Errorf("statfs on a fresh volume: %+v", st0)
	}
	writeFile(t, v.path("f"), pattern(61, 20<<20))
	for i := range 50 {
		writeFile(t, v.path("small-"+strconv.Itoa(i)), []byte("x"))
	}
	st1 := statfs(t, v.dir)
	grew := int64(usedBytes(st1)) - int64(usedBytes(st0))
	if grew < 20<<20 || grew > 22<<20 {
		t.Errorf("statfs used space grew by %d bytes after writing 20 MiB and 50 one-byte files", grew)
	}
	if files := int64(st0.Ffree) - int64(st1.Ffree); st1.Files != 0 && files != 51 {
		t.Errorf("free inodes fell by %d after creating 51 files", files)
	}
	out, err := exec.Command("df", "-B1", v.dir).CombinedOutput()
	if err != nil {
		t.Fatalf("df: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), v.dir) {
		t.Errorf("df does not show the mount point:\n%s", out)
	}
	if singleProcess() {
		return // 'cairn status' cannot open the volume while it is mounted
	}
	u := status(t, v.meta).Usage
	if u.UsedSpace < 20<<20 || u.UsedInodes < 52 {
		t.Errorf("cairn status usage %+v after writing 20 MiB in 51 files", u)
	}
}

// TestBackgroundMountAndUmount mounts with -d, which returns once the
// volume is ready, and unmounts with 'cairn umount'.
func TestBackgroundMountAndUmount(t *testing.T) {
	needMount(t)
	v := formatVolume(t)
	t.Cleanup(func() { testenv.ForceUnmount(t, v.dir) })
	cache := filepath.Join(tempDir(t), "cache")
	cairnOK(t, "mount", v.meta, v.dir, "-d", "--cache-dir", cache)
	if !testenv.IsMounted(v.dir) {
		t.Fatalf("cairn mount -d returned before %s was mounted", v.dir)
	}
	writeFile(t, v.path("f"), []byte("background"))
	cairnOK(t, "umount", v.dir)
	if testenv.IsMounted(v.dir) {
		t.Fatalf("%s still mounted after cairn umount", v.dir)
	}
	v.mount(t)
	wantContent(t, v.path("f"), []byte("background"))
}

// TestProfileOfBackgroundMount: with CAIRN_PPROF, 'cairn mount -d' leaves
// the profile address to the background mount, which is what one wants to
// profile; the parent used to keep it until it exited.
func TestProfileOfBackgroundMount(t *testing.T) {
	needMount(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	t.Setenv("CAIRN_PPROF", addr)
	v := formatVolume(t)
	t.Cleanup(func() { testenv.ForceUnmount(t, v.dir) })
	cairnOK(t, "mount", v.meta, v.dir, "-d", "--cache-dir", filepath.Join(tempDir(t), "cache"))
	resp, err := http.Get("http://" + addr + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		t.Fatalf("profile of the background mount at %s: %v", addr, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "go-fuse") {
		t.Errorf("profile at %s: status %d, no goroutine of the mount in:\n%.500s", addr, resp.StatusCode, body)
	}
	cairnOK(t, "umount", v.dir)
}

// TestUmountNotMounted: unmounting a directory that is no mount point says
// so in one line.
func TestUmountNotMounted(t *testing.T) {
	needBinary(t)
	dir := tempDir(t)
	wantUserError(t, runCairn(t, "umount", dir), "not mounted")
	wantUserError(t, runCairn(t, "umount", filepath.Join(dir, "missing")), "does not exist")
}

// TestSignalRightAfterMount stops a mount the moment the kernel lists it,
// as a service manager may: the process must still flush, unmount and exit.
func TestSignalRightAfterMount(t *testing.T) {
	needMount(t)
	v := formatVolume(t)
	for i := range 5 {
		args := append([]string{"mount", v.meta, v.dir, "--cache-dir", filepath.Join(tempDir(t), "cache")}, v.mountArgs...)
		m := testenv.StartMount(t, exec.Command(cairnBin, args...), v.dir)
		if err := m.Unmount(); err != nil {
			t.Fatalf("round %d: SIGTERM as soon as the mount appeared: %v; output:\n%s", i, err, m.Output())
		}
	}
}
