package fuse

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	gofuse "github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"

	"cairn/internal/testenv"
	"cairn/meta"
	"cairn/vfs"
	"cairn/volume"
)

// mount serves a fresh volume at a temporary directory.
func mount(t *testing.T) string {
	t.Helper()
	return mountVolume(t, newVolume(t), time.Second)
}

// newVolume formats a volume of the test's own (metadata in SQLite, blocks
// in a directory, both of which several clients may share) and returns its
// metadata URL.
func newVolume(t testing.TB) string {
	t.Helper()
	return formatVolume(t, "sqlite3://"+filepath.Join(t.TempDir(), "meta.db"))
}

// formatVolume formats a volume with its metadata at metaURL and its
// blocks in a directory of the test's own, and returns metaURL.
func formatVolume(t testing.TB, metaURL string) string {
	t.Helper()
	requireFUSE(t)
	f := testFormat
	f.Bucket = filepath.Join(t.TempDir(), "blocks")
	v, err := volume.OpenMeta(context.Background(), metaURL, volume.Options{Create: &f})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	return metaURL
}

// requireFUSE skips (fails in CI) where FUSE cannot be mounted.
func requireFUSE(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		testenv.Missing(t, "FUSE tests need root")
	}
	if _, err := os.Stat("/dev/fuse"); err != nil {
		testenv.Missing(t, "no /dev/fuse: %v", err)
	}
}

var testFormat = meta.Format{Name: "t", UUID: "u", Storage: "file", BlockSize: 64 << 10, Compression: "lz4", Version: meta.FormatVersion}

// mountVolume mounts one more client of the volume at metaURL, caching for
// ttl.
func mountVolume(t testing.TB, metaURL string, ttl time.Duration) string {
	t.Helper()
	dir, _ := mountOpen(t, metaURL, ttl)
	return dir
}

// mountOpen is mountVolume, which also returns the client's volume.
func mountOpen(t testing.TB, metaURL string, ttl time.Duration) (string, *volume.Volume) {
	t.Helper()
	ctx := context.Background()
	vol, err := volume.Open(ctx, metaURL, volume.Options{
		Client: meta.ClientConfig{AttrTimeout: ttl, EntryTimeout: ttl, DirEntryTimeout: ttl},
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	srv, err := Mount(vol.VFS, dir, Options{FsName: "cairn:t", DefaultPermissions: true})
	if err != nil {
		vol.Close(ctx)
		testenv.Missing(t, "cannot mount FUSE here: %v", err)
	}
	t.Cleanup(func() {
		if err := Unmount(srv); err != nil {
			t.Errorf("unmount: %v", err)
		}
		srv.Wait()
		if err := vol.Close(ctx); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return dir, vol
}

// TestCloseToOpen checks that a second client sees what the first one
// wrote once the writer closed and the reader opened, even while the
// reader's kernel still caches the old attributes.
func TestCloseToOpen(t *testing.T) {
	url := newVolume(t)
	a := mountVolume(t, url, time.Minute)
	b := mountVolume(t, url, time.Minute)
	must(t, os.WriteFile(filepath.Join(a, "f"), []byte("first"), 0644))
	if got, err := os.ReadFile(filepath.Join(b, "f")); err != nil || string(got) != "first" {
		t.Fatalf("second client reads %q, %v", got, err)
	}
	f, err := os.OpenFile(filepath.Join(a, "f"), os.O_WRONLY|os.O_APPEND, 0)
	must(t, err)
	_, err = f.WriteString(" and second")
	must(t, err)
	must(t, f.Close())
	if got, err := os.ReadFile(filepath.Join(b, "f")); err != nil || string(got) != "first and second" {
		t.Fatalf("second client reads %q after the first appended, %v", got, err)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestRenameFlags(t *testing.T) {
	dir := mount(t)
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	must(t, os.WriteFile(a, []byte("A"), 0644))
	must(t, os.WriteFile(b, []byte("B"), 0644))
	if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_NOREPLACE); err != unix.EEXIST {
		t.Fatalf("RENAME_NOREPLACE over an existing name: %v, want EEXIST", err)
	}
	must(t, unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE))
	if got, _ := os.ReadFile(a); string(got) != "B" {
		t.Fatalf("after exchange a holds %q", got)
	}
	if got, _ := os.ReadFile(b); string(got) != "A" {
		t.Fatalf("after exchange b holds %q", got)
	}
}

// TestRenameRefusesOtherFlags: a rename from the kernel with any flag but
// RENAME_NOREPLACE and RENAME_EXCHANGE is EINVAL and moves nothing, so
// that no application can set meta's own flags. The kernel itself lets
// only renameat2's flags through, so the requests are made here as it
// would make them, on the file system the mount serves.
func TestRenameRefusesOtherFlags(t *testing.T) {
	ctx := context.Background()
	vol, err := volume.Open(ctx, newVolume(t), volume.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer vol.Close(ctx)
	fs := NewFS(vol.VFS)
	var out gofuse.EntryOut
	if st := fs.Mkdir(nil, &gofuse.MkdirIn{InHeader: gofuse.InHeader{NodeId: 1}, Mode: 0o755}, "d", &out); st != gofuse.OK {
		t.Fatalf("mkdir: %v", st)
	}
	rename := func(flags uint32) gofuse.Status {
		return fs.Rename(nil, &gofuse.RenameIn{InHeader: gofuse.InHeader{NodeId: 1}, Newdir: 1, Flags: flags}, "d", "e")
	}
	for _, flags := range []uint32{meta.RenameNoReplace | meta.RenameEmptyDir, meta.RenameEmptyDir, unix.RENAME_WHITEOUT, 1 << 31} {
		if st := rename(flags); st != gofuse.EINVAL {
			t.Errorf("rename with flags %#x: %v, want EINVAL", flags, st)
		}
	}
	if st := fs.Lookup(nil, &gofuse.InHeader{NodeId: 1}, "d", &out); st != gofuse.OK {
		t.Fatalf("d after the refused renames: %v", st)
	}
	if st := rename(unix.RENAME_NOREPLACE); st != gofuse.OK {
		t.Fatalf("rename with RENAME_NOREPLACE: %v", st)
	}
}

// Shared writable mmap is tested in package tests, from a separate
// process: touching a mapping of this process's own mount here can
// deadlock, since a thread stuck in the page fault stops the Go runtime's
// stop-the-world while the FUSE server that would answer it is a goroutine
// of the same process.

func TestPunchHoleAndCopyRange(t *testing.T) {
	dir := mount(t)
	p := filepath.Join(dir, "h")
	data := bytes.Repeat([]byte{7}, 256<<10)
	must(t, os.WriteFile(p, data, 0644))
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	must(t, err)
	defer f.Close()
	must(t, unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, 1000, 5000))
	clear(data[1000:6000])
	got := make([]byte, len(data))
	_, err = f.ReadAt(got, 0)
	must(t, err)
	if !bytes.Equal(got, data) {
		t.Fatalf("content after punching a hole differs")
	}
	q := filepath.Join(dir, "copy")
	g, err := os.OpenFile(q, os.O_CREATE|os.O_RDWR, 0644)
	must(t, err)
	defer g.Close()
	off := int64(0)
	n, err := unix.CopyFileRange(int(f.Fd()), &off, int(g.Fd()), nil, len(data), 0)
	must(t, err)
	if n != len(data) {
		t.Fatalf("copied %d bytes, want %d", n, len(data))
	}
	must(t, g.Close())
	if got, _ := os.ReadFile(q); !bytes.Equal(got, data) {
		t.Fatalf("copy differs")
	}
}

func TestAppendAndStatfs(t *testing.T) {
	dir := mount(t)
	p := filepath.Join(dir, "log")
	for _, s := range []string{"one\n", "two\n"} {
		f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0644)
		must(t, err)
		_, err = f.WriteString(s)
		must(t, err)
		must(t, f.Close())
	}
	if got, _ := os.ReadFile(p); string(got) != "one\ntwo\n" {
		t.Fatalf("appended file holds %q", got)
	}
	var st syscall.Statfs_t
	must(t, syscall.Statfs(dir, &st))
	if st.Files == 0 || st.Blocks == 0 || st.Namelen != 255 {
		t.Fatalf("statfs %+v", st)
	}
	if st.Files-st.Ffree != 2 { // the root and log
		t.Fatalf("statfs counts %d inodes in use, want 2", st.Files-st.Ffree)
	}
}

func TestStatsFile(t *testing.T) {
	dir := mount(t)
	must(t, os.WriteFile(filepath.Join(dir, "x"), []byte("x"), 0644))
	data, err := os.ReadFile(filepath.Join(dir, vfs.StatsName))
	must(t, err)
	for _, key := range []string{`"fuse.create"`, `"meta.mknod"`, `"engine"`, `"blocks"`} {
		if !bytes.Contains(data, []byte(key)) {
			t.Errorf(".stats lacks %s:\n%s", key, data)
		}
	}
	es, err := os.ReadDir(dir)
	must(t, err)
	for _, e := range es {
		if e.Name() == vfs.StatsName {
			t.Errorf(".stats is listed by readdir")
		}
	}
}

// TestKernelReadAhead checks that a mount raises the kernel's readahead
// for itself, so that a sequential reader has several requests in flight.
func TestKernelReadAhead(t *testing.T) {
	dir := mount(t)
	var st syscall.Stat_t
	if err := syscall.Stat(dir, &st); err != nil {
		t.Fatal(err)
	}
	path := fmt.Sprintf("/sys/class/bdi/%d:%d/read_ahead_kb", unix.Major(uint64(st.Dev)), unix.Minor(uint64(st.Dev)))
	got, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("no sysfs entry for the mount: %v", err)
	}
	if want := fmt.Sprint(defaultReadAhead >> 10); strings.TrimSpace(string(got)) != want {
		t.Errorf("%s = %s, want %s", path, strings.TrimSpace(string(got)), want)
	}
}
