package tests

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// populateForDump adds to populate's tree what a dump must carry besides:
// files of many sizes, a multi-chunk file whose slices overwrite each
// other, device nodes, setuid/setgid/sticky modes, nanosecond times,
// binary xattrs, a dangling symlink, a deep tree and a big directory.
func populateForDump(t testing.TB, v *volume, bigDir int) {
	t.Helper()
	populate(t, v)
	p := v.path
	must(t, os.Mkdir(p("sizes"), 0o755), "mkdir")
	for i, n := range []int{0, 1, 4095, 4096, 4097, 65536, 1 << 20, 4<<20 + 3} {
		writeFile(t, p("sizes", fmt.Sprintf("f%d", i)), pattern(uint64(i), n))
	}
	f, err := os.Create(p("overwritten"))
	must(t, err, "create")
	for i, at := range []int64{0, 100, 64<<20 - 10, 50, 64 << 20} {
		_, err := f.WriteAt(pattern(uint64(100+i), 5000), at)
		must(t, err, "write")
		must(t, f.Sync(), "fsync") // each write its own slice
	}
	must(t, f.Close(), "close")
	must(t, unix.Mknod(p("null"), unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))), "mknod chardev")
	must(t, unix.Mknod(p("loop"), unix.S_IFBLK|0o600, int(unix.Mkdev(7, 0))), "mknod blockdev")
	writeFile(t, p("setuid"), []byte("#!/bin/sh\n"))
	must(t, unix.Chmod(p("setuid"), 0o6755), "chmod setuid")
	must(t, os.Mkdir(p("sticky"), 0o755), "mkdir")
	must(t, unix.Chmod(p("sticky"), 0o1777), "chmod sticky")
	must(t, unix.UtimesNanoAt(unix.AT_FDCWD, p("setuid"), []unix.Timespec{{Sec: 1234567890, Nsec: 123456789}, {Sec: 1300000000, Nsec: 987654321}}, 0), "utimensat")
	must(t, unix.Setxattr(p("sizes"), "user.bin", []byte{0, 1, 2, 0xff}, 0), "setxattr")
	must(t, unix.Setxattr(p("setuid"), "user.empty", []byte{}, 0), "setxattr")
	must(t, os.Symlink("nowhere/at/all", p("dangling")), "symlink")
	deep := p("deep")
	for i := range 30 {
		deep = filepath.Join(deep, fmt.Sprintf("d%d", i))
	}
	must(t, os.MkdirAll(deep, 0o700), "mkdir deep")
	writeFile(t, filepath.Join(deep, "leaf"), []byte("leaf"))
	must(t, os.Mkdir(p("big"), 0o755), "mkdir")
	for i := range bigDir {
		fd, err := unix.Open(p("big", fmt.Sprintf("entry-%05d", i)), unix.O_CREAT|unix.O_WRONLY, 0o600)
		must(t, err, "create")
		unix.Close(fd)
	}
}

// dumpSnapshot is snapshot plus each name's ctime in nanoseconds, which a
// load must keep too.
func dumpSnapshot(t testing.TB, root string) map[string]string {
	t.Helper()
	out := snapshot(t, root)
	for name := range out {
		var st unix.Stat_t
		must(t, unix.Lstat(filepath.Join(root, name), &st), "lstat")
		out[name] += fmt.Sprintf(" | ctime %d.%09d rdev %d", st.Ctim.Sec, st.Ctim.Nsec, st.Rdev)
	}
	return out
}

func sameTree(t testing.TB, step string, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d names, want %d", step, len(got), len(want))
	}
	bad := 0
	for k, w := range want {
		if g := got[k]; g != w && bad < 10 {
			bad++
			t.Errorf("%s: %s:\n got  %.300s\n want %.300s", step, k, g, w)
		}
	}
}

// dumpLines reads a JSON dump (gzip if named .gz) as its sorted lines,
// and the header apart.
func dumpLines(t testing.TB, path string) (header string, records []string) {
	t.Helper()
	f, err := os.Open(path)
	must(t, err, "open dump")
	defer f.Close()
	var r interface{ Read([]byte) (int, error) } = f
	if strings.HasSuffix(path, ".gz") {
		z, err := gzip.NewReader(f)
		must(t, err, "gunzip")
		r = z
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		if header == "" {
			header = sc.Text()
			continue
		}
		records = append(records, sc.Text())
	}
	must(t, sc.Err(), "read dump")
	slices.Sort(records)
	return header, records
}

// TestDumpRing moves one volume, populated through a mount, through every
// engine (SQLite → Redis → PostgreSQL → MariaDB → etcd → Badger →
// SQLite) by dump and load, in every form of the file, mounts it after
// each step and compares the tree with the original name by name, and
// checks that a full directory quota set before the first dump still
// refuses a create; the last dump must equal the first (directory
// statistics and quotas included). It runs once, not once per engine.
func TestDumpRing(t *testing.T) {
	if os.Getenv("CAIRN_TEST_ENGINE") != "" {
		t.Skip("the ring goes through every engine itself: it runs in the default pass only")
	}
	bigDir := 10000
	if testing.Short() {
		bigDir = 1000
	}
	v := newVolume(t)
	populateForDump(t, v, bigDir)
	want := dumpSnapshot(t, v.dir)
	v.unmount(t)
	// A quota that is full: after each load, a create under it must
	// still be refused.
	cairnOK(t, "quota", "set", v.meta, "--path", "/sizes", "--inodes", "8")

	dir := tempDir(t)
	first := filepath.Join(dir, "0-sqlite3.json")
	cairnOK(t, "dump", v.meta, first)
	ring := []struct{ engine, file string }{
		{"redis", "1-redis.bin"},
		{"postgres", "2-postgres.json.gz"},
		{"mysql", "3-mysql.bin.zst"},
		{"etcd", "4-etcd.json.zst"},
		{"badger", "5-badger.bin.gz"},
		{"sqlite3", "6-sqlite3.json"},
	}
	prev := first
	for _, step := range ring {
		start := time.Now()
		target := &volume{name: v.name, meta: metaEngines[step.engine](t), bucket: v.bucket, mountArgs: v.mountArgs,
			dir: filepath.Join(tempDir(t), "mnt")}
		must(t, os.Mkdir(target.dir, 0o755), "mkdir")
		cairnOK(t, "load", target.meta, prev)
		loaded := time.Now()
		target.mount(t)
		sameTree(t, "after loading into "+step.engine, dumpSnapshot(t, target.dir), want)
		_, err := os.Create(target.path("sizes", "over-quota"))
		wantErrno(t, err, unix.EDQUOT, "create under a full quota after loading into "+step.engine)
		target.unmount(t)
		compared := time.Now()
		next := filepath.Join(dir, step.file)
		args := []string{"dump", target.meta, next}
		if strings.Contains(step.file, ".bin") {
			args = append(args, "--binary")
		}
		cairnOK(t, args...)
		prev = next
		t.Logf("%s: load %v, mount and compare %v, dump %v", step.engine, loaded.Sub(start).Round(time.Millisecond),
			compared.Sub(loaded).Round(time.Millisecond), time.Since(compared).Round(time.Millisecond))
	}
	h1, r1 := dumpLines(t, first)
	h2, r2 := dumpLines(t, prev)
	if h1 != h2 {
		t.Errorf("the last dump's header differs from the first's:\n%s\n%s", h2, h1)
	}
	if !slices.Equal(r1, r2) {
		n := 0
		for _, l := range r1 {
			if _, found := slices.BinarySearch(r2, l); !found && n < 10 {
				n++
				t.Errorf("the last dump lacks %s", l)
			}
		}
		for _, l := range r2 {
			if _, found := slices.BinarySearch(r1, l); !found && n < 20 {
				n++
				t.Errorf("the last dump has extra %s", l)
			}
		}
	}
}

// TestDumpBadInput: every bad input is one line and exit status 1, and
// leaves the target database as it was.
func TestDumpBadInput(t *testing.T) {
	v := formatVolume(t)
	dir := tempDir(t)
	good := filepath.Join(dir, "good.json")
	cairnOK(t, "dump", v.meta, good)
	data, err := os.ReadFile(good)
	must(t, err, "read dump")
	lines := strings.SplitAfter(string(data), "\n")

	unformatted := newMetaURL(t)
	wantUserError(t, runCairn(t, "dump", unformatted, filepath.Join(dir, "x.json")), "no cairn volume")
	if path, ok := strings.CutPrefix(unformatted, "sqlite3://"); ok {
		if _, err := os.Stat(path); err == nil {
			t.Errorf("a dump of a volume never formatted created %s", path)
		}
	}
	wantUserError(t, runCairn(t, "dump"), "argument")
	wantUserError(t, runCairn(t, "load", v.meta, good, "extra"), "argument")
	wantUserError(t, runCairn(t, "load", "redis://127.0.0.1:1/1", good), "cannot reach")
	wantUserError(t, runCairn(t, "load", "mem://", good), "mem://")
	wantUserError(t, runCairn(t, "dump", "redis://127.0.0.1:1/1", filepath.Join(dir, "y.json")), "cannot reach")
	for _, name := range []string{"x.json", "y.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("a failed dump left %s behind", name)
		}
	}

	files := map[string]struct {
		content string
		want    string
	}{
		"truncated.json": {strings.Join(lines[:len(lines)-2], ""), "truncated"},
		"corrupt.json":   {lines[0] + "{\"kind\":\"inode\",\"ino\":1,\"type\n" + strings.Join(lines[1:], ""), "line 2 is damaged"},
		"empty.json":     {"", "is empty"},
		"foreign.json":   {"<html>hello</html>\n", "not a cairn dump"},
		"newer.json":     {strings.Replace(string(data), `"cairn_dump":1`, `"cairn_dump":7`, 1), "version 7, newer"},
	}
	target := newMetaURL(t)
	for name, f := range files {
		path := filepath.Join(dir, name)
		must(t, os.WriteFile(path, []byte(f.content), 0o644), "write")
		wantUserError(t, runCairn(t, "load", target, path), f.want)
	}
	wantUserError(t, runCairn(t, "dump", target, filepath.Join(dir, "z.json")), "no cairn volume")

	// A database that holds a volume is refused and left as it was.
	wantUserError(t, runCairn(t, "load", v.meta, good), "not empty")
	again := filepath.Join(dir, "again.json")
	cairnOK(t, "dump", v.meta, again)
	if b, _ := os.ReadFile(again); !bytes.Equal(b, data) {
		t.Errorf("a refused load changed the volume: its dump went from\n%s\nto\n%s", data, b)
	}
	// The failed loads left nothing that stops a good one.
	cairnOK(t, "load", target, good)
	cairnOK(t, "dump", target, again)
	if b, _ := os.ReadFile(again); !bytes.Equal(b, data) {
		t.Errorf("load then dump changed the volume:\n%s\nwant\n%s", b, data)
	}
}

// TestDumpWhileWriting dumps a mounted volume while two writers keep
// moving a directory each between two parents, then loads the dump and
// mounts it: each moved directory must have exactly one name, and the
// parents' link counts must match the subdirectories they hold — the tree
// of one moment, not a mix.
func TestDumpWhileWriting(t *testing.T) {
	if singleProcess() {
		t.Skipf("the %s engine serves one process at a time: no dump while mounted", engineName())
	}
	v := newVolume(t)
	left, right := v.path("left"), v.path("right")
	must(t, os.Mkdir(left, 0o755), "mkdir")
	must(t, os.Mkdir(right, 0o755), "mkdir")
	for i := range 3000 {
		fd, err := unix.Open(filepath.Join(right, fmt.Sprintf("pad%04d", i)), unix.O_CREAT|unix.O_WRONLY, 0o600)
		must(t, err, "create")
		unix.Close(fd)
	}
	names := []string{"w0", "w1"}
	for _, n := range names {
		must(t, os.Mkdir(filepath.Join(left, n), 0o755), "mkdir")
	}
	stop := make(chan struct{})
	errs := make(chan error, len(names))
	for _, n := range names {
		go func() {
			from, to := left, right
			for {
				select {
				case <-stop:
					errs <- nil
					return
				default:
				}
				if err := os.Rename(filepath.Join(from, n), filepath.Join(to, n)); err != nil {
					errs <- err
					return
				}
				from, to = to, from
			}
		}()
	}
	dir := tempDir(t)
	for round := range 5 {
		file := filepath.Join(dir, fmt.Sprintf("dump%d.json", round))
		cairnOK(t, "dump", v.meta, file)
		target := &volume{name: v.name, meta: newMetaURL(t), bucket: v.bucket, mountArgs: v.mountArgs,
			dir: filepath.Join(tempDir(t), "mnt")}
		must(t, os.Mkdir(target.dir, 0o755), "mkdir")
		cairnOK(t, "load", target.meta, file)
		target.mount(t)
		subdirs := map[string]uint64{}
		for _, n := range names {
			found := 0
			for _, parent := range []string{"left", "right"} {
				if fi, err := os.Stat(target.path(parent, n)); err == nil && fi.IsDir() {
					found++
					subdirs[parent]++
				}
			}
			if found != 1 {
				t.Errorf("dump %d: directory %s has %d names, want 1: not one moment", round, n, found)
			}
		}
		for _, parent := range []string{"left", "right"} {
			var st unix.Stat_t
			must(t, unix.Stat(target.path(parent), &st), "stat")
			if uint64(st.Nlink) != 2+subdirs[parent] {
				t.Errorf("dump %d: %s has %d links and holds %d subdirectories: not one moment", round, parent, st.Nlink, subdirs[parent])
			}
		}
		target.unmount(t)
	}
	close(stop)
	for range names {
		if err := <-errs; err != nil {
			t.Fatalf("writer: %v", err)
		}
	}
}
