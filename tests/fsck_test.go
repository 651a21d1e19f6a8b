package tests

import (
	"bytes"
	"context"
	dbsql "database/sql"
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"
	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	goredis "github.com/redis/go-redis/v9"

	"cairn/internal/testenv"
)

// urlArgs is META-URL plus the flags that reach v's objects.
func (v *volume) urlArgs(command string, extra ...string) []string {
	return append(append([]string{command, v.meta}, v.mountArgs...), extra...)
}

// removeObject deletes key from v's bucket behind cairn's back.
func (v *volume) removeObject(t testing.TB, key string) {
	t.Helper()
	if v.minio == nil {
		must(t, os.Remove(filepath.Join(v.bucket, key)), "remove an object")
		return
	}
	client, err := minio.New(v.minio.Endpoint(), &minio.Options{Creds: credentials.NewStaticV4(v.minio.AccessKey, v.minio.SecretKey, "")})
	must(t, err, "minio client")
	err = client.RemoveObject(context.Background(), v.bucket[strings.LastIndexByte(v.bucket, '/')+1:], key, minio.RemoveObjectOptions{})
	must(t, err, "remove an object")
}

// blockKeys lists the keys of v's block objects.
func (v *volume) blockKeys(t testing.TB) []string {
	t.Helper()
	var keys []string
	if v.minio == nil {
		err := filepath.WalkDir(filepath.Join(v.bucket, "chunks"), func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				rel, _ := filepath.Rel(v.bucket, path)
				keys = append(keys, filepath.ToSlash(rel))
			}
			return err
		})
		must(t, err, "walk the bucket")
		return keys
	}
	client, err := minio.New(v.minio.Endpoint(), &minio.Options{Creds: credentials.NewStaticV4(v.minio.AccessKey, v.minio.SecretKey, "")})
	must(t, err, "minio client")
	bucket := v.bucket[strings.LastIndexByte(v.bucket, '/')+1:]
	for obj := range client.ListObjects(context.Background(), bucket, minio.ListObjectsOptions{Prefix: "chunks/", Recursive: true}) {
		must(t, obj.Err, "list objects")
		keys = append(keys, obj.Key)
	}
	return keys
}

// gcCount reads the object count of a line of 'cairn gc' ("leaked:   3 objects (…)").
func gcCount(t testing.TB, out, label string) int {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, label+":"); ok {
			n, err := strconv.Atoi(strings.Fields(rest)[0])
			must(t, err, "gc's count of "+label)
			return n
		}
	}
	t.Fatalf("gc printed no %q line:\n%s", label, out)
	return 0
}

// TestFsckMissingObjects: an object deleted behind cairn's back; fsck
// names the file that lost it (and only it), --path narrows the check,
// --repair moves the file to /lost+found, and fsck is clean after.
func TestFsckMissingObjects(t *testing.T) {
	v := newVolume(t)
	must(t, os.MkdirAll(v.path("a"), 0o755), "mkdir")
	must(t, os.MkdirAll(v.path("b"), 0o755), "mkdir")
	x := pattern(31, 9<<20+5)
	writeFile(t, v.path("a", "x"), x)
	writeFile(t, v.path("a", "y"), pattern(32, 1000))
	writeFile(t, v.path("b", "z"), pattern(33, 3<<20))
	fi, err := os.Stat(v.path("a", "x"))
	must(t, err, "stat")
	ino := fi.Sys().(*syscall.Stat_t).Ino
	v.unmount(t)

	out := cairnOK(t, v.urlArgs("fsck")...)
	if !strings.Contains(out, " 0 problems") {
		t.Fatalf("fsck of a sound volume:\n%s", out)
	}
	// Only /a/x has blocks of 4 MiB.
	var full []string
	for _, key := range v.blockKeys(t) {
		if strings.HasSuffix(key, "_4194304") {
			full = append(full, key)
		}
	}
	if len(full) == 0 {
		t.Fatalf("no object of 4 MiB in the bucket: %v", v.blockKeys(t))
	}
	v.removeObject(t, full[0])
	r := runCairn(t, v.urlArgs("fsck")...)
	wantUserError(t, r, "1 problems", "--repair")
	if !strings.Contains(r.stdout, "/a/x: missing object: ") || strings.Count(r.stdout, "missing object") != 1 {
		t.Errorf("fsck after an object went:\n%s", r.stdout)
	}
	cairnOK(t, v.urlArgs("fsck", "--path", "/b")...)
	wantUserError(t, runCairn(t, v.urlArgs("fsck", "--path", "/a")...), "1 problems")
	wantUserError(t, runCairn(t, v.urlArgs("fsck", "--path", "/nothing/here")...), "/nothing/here does not exist", "nothing was checked")

	out = cairnOK(t, v.urlArgs("fsck", "--repair")...)
	if !strings.Contains(out, "moved 1 files to /lost+found") {
		t.Errorf("fsck --repair:\n%s", out)
	}
	out = cairnOK(t, v.urlArgs("fsck")...)
	if !strings.Contains(out, " 0 problems") || !strings.Contains(out, "1 files in /lost+found") {
		t.Errorf("fsck after --repair:\n%s", out)
	}
	v.mount(t)
	if _, err := os.Stat(v.path("a", "x")); !os.IsNotExist(err) {
		t.Errorf("/a/x after --repair: %v", err)
	}
	fi, err = os.Stat(v.path("lost+found", fmt.Sprintf("%d-x", ino)))
	if err != nil || fi.Size() != int64(len(x)) {
		t.Errorf("the file in lost+found: %v", err)
	}
	if !bytes.Equal(readFile(t, v.path("a", "y")), pattern(32, 1000)) {
		t.Errorf("/a/y changed")
	}
}

// breakCounters changes the link count of inode ino to 7 and the volume's
// inode count by 3 in the database itself, behind the engine.
func (v *volume) breakCounters(t testing.TB, ino uint64) {
	t.Helper()
	switch engineName() {
	case "sqlite3":
		db, err := dbsql.Open("sqlite3", strings.TrimPrefix(v.meta, "sqlite3://"))
		must(t, err, "open the database")
		defer db.Close()
		_, err = db.Exec("UPDATE cairn_node SET nlink = 7 WHERE ino = ?", ino)
		must(t, err, "break a link count")
		_, err = db.Exec("UPDATE cairn_usage SET inodes = inodes + 3")
		must(t, err, "break the usage")
	case "redis":
		opts, err := goredis.ParseURL(v.meta)
		must(t, err, "parse the Redis URL")
		rdb := goredis.NewClient(opts)
		defer rdb.Close()
		ctx := context.Background()
		// nlink is the u32 after type, mode, uid, gid and rdev.
		must(t, rdb.SetRange(ctx, fmt.Sprintf("cairn:i%d", ino), 1+2+4+4+4, string(binary.BigEndian.AppendUint32(nil, 7))).Err(), "break a link count")
		must(t, rdb.HIncrBy(ctx, "cairn:usage", "inodes", 3).Err(), "break the usage")
	default:
		t.Skipf("the test breaks counters in SQLite and Redis only, not %s", engineName())
	}
}

// TestFsckBrokenCounters: a link count and the usage broken in the
// database itself; fsck reports both, --repair fixes them, a second fsck
// is clean and the file shows the right link count.
func TestFsckBrokenCounters(t *testing.T) {
	if engineName() != "sqlite3" && engineName() != "redis" {
		t.Skipf("the test breaks counters in SQLite and Redis only, not %s", engineName())
	}
	v := newVolume(t)
	must(t, os.MkdirAll(v.path("d"), 0o755), "mkdir")
	writeFile(t, v.path("d", "f"), pattern(41, 5000))
	must(t, os.Link(v.path("d", "f"), v.path("d", "g")), "link")
	var info infoJSON
	v.inspectOK(t, &info, "info", v.path("d", "f"))
	v.unmount(t)
	cairnOK(t, v.urlArgs("fsck")...)

	v.breakCounters(t, info.Ino)
	r := runCairn(t, v.urlArgs("fsck")...)
	wantUserError(t, r, "2 problems", "2 can be fixed")
	if !strings.Contains(r.stdout, "wrong link count: nlink is 7, its entries make it 2") || !strings.Contains(r.stdout, "/: wrong usage:") {
		t.Errorf("fsck of broken counters:\n%s", r.stdout)
	}
	out := cairnOK(t, v.urlArgs("fsck", "--repair")...)
	if !strings.Contains(out, "repaired 1 link counts, the usage counters") {
		t.Errorf("fsck --repair:\n%s", out)
	}
	if out := cairnOK(t, v.urlArgs("fsck")...); !strings.Contains(out, " 0 problems") {
		t.Errorf("fsck after --repair:\n%s", out)
	}
	v.mount(t)
	fi, err := os.Stat(v.path("d", "g"))
	if err != nil || fi.Sys().(*syscall.Stat_t).Nlink != 2 {
		t.Errorf("after --repair, /d/g: %v %+v", err, fi)
	}
}

// TestFsckGCAfterKill: a mount killed with SIGKILL while a program
// writes through it; fsck then finds nothing broken, gc finds at most the
// objects of the writes in flight and, once they are old enough, deletes
// them, and every file whose close succeeded still reads back.
func TestFsckGCAfterKill(t *testing.T) {
	v := newVolume(t)
	cmd := exec.Command(helperBin, "writefiles", v.dir)
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	stdin, err := cmd.StdinPipe()
	must(t, err, "writer stdin")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	must(t, cmd.Start(), "start the writer")
	time.Sleep(time.Second)
	killMount(t, v)
	stdin.Close()
	cmd.Wait()
	testenv.ForceUnmount(t, v.dir)

	var acked []int
	inFlight := 1 // the file being written when the writer was told to stop
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		i, err := strconv.Atoi(f[1])
		must(t, err, "writer's file number")
		if f[0] == "ok" {
			acked = append(acked, i)
		} else {
			inFlight++
		}
	}
	if len(acked) == 0 {
		t.Fatalf("the writer wrote nothing before the kill:\n%s", out.String())
	}
	if out := cairnOK(t, v.urlArgs("fsck")...); !strings.Contains(out, " 0 problems") {
		t.Errorf("fsck after the kill:\n%s", out)
	}
	gcOut := cairnOK(t, v.urlArgs("gc")...)
	if n := gcCount(t, gcOut, "leaked"); n != 0 {
		t.Errorf("gc took %d objects of writes just made for leaks:\n%s", n, gcOut)
	}
	gcOut = cairnOK(t, v.urlArgs("gc", "--delete", "--min-age", "1ms")...)
	t.Logf("%d files written before the kill, %d writes in flight; gc --delete --min-age 1ms:\n%s", len(acked), inFlight, gcOut)
	// A file is 64 KiB: one object.
	if n := gcCount(t, gcOut, "leaked"); n > inFlight {
		t.Errorf("gc found %d leaked objects, more than the %d writes in flight:\n%s", n, inFlight, gcOut)
	}
	if out := cairnOK(t, v.urlArgs("fsck")...); !strings.Contains(out, " 0 problems") {
		t.Errorf("fsck after gc --delete:\n%s", out)
	}
	gcOut = cairnOK(t, v.urlArgs("gc", "--min-age", "1ms")...)
	if n := gcCount(t, gcOut, "leaked"); n != 0 {
		t.Errorf("a second gc found %d leaked objects:\n%s", n, gcOut)
	}
	v.mount(t)
	for _, i := range acked {
		if got := readFile(t, v.path(fmt.Sprintf("f%d", i))); !bytes.Equal(got, pattern(uint64(i), restartSize)) {
			t.Fatalf("f%d, written and closed before the kill, reads back wrong after gc", i)
		}
	}
}

// TestCompactCommand: a file written in many small fsynced pieces holds
// many slices; 'cairn compact' merges them into one, the data stays, and
// the old slices' objects go.
func TestCompactCommand(t *testing.T) {
	if singleProcess() {
		t.Skipf("the %s engine serves one process at a time: gc cannot open a mounted volume", engineName())
	}
	v := newVolume(t)
	must(t, os.MkdirAll(v.path("d", "e"), 0o755), "mkdir")
	f, err := os.Create(v.path("d", "e", "f"))
	must(t, err, "create")
	want := pattern(51, 20*4096)
	for i := 0; i < 20; i++ {
		_, err := f.Write(want[i*4096 : (i+1)*4096])
		must(t, err, "write")
		must(t, f.Sync(), "fsync")
	}
	must(t, f.Close(), "close")
	var info infoJSON
	v.inspectOK(t, &info, "info", v.path("d", "e", "f"))
	if len(info.Chunks) != 1 || len(info.Chunks[0].Slices) < 2 {
		t.Fatalf("20 fsynced writes made %+v", info.Chunks)
	}
	before := len(info.Chunks[0].Slices)
	// No storage credentials: compact runs in the mount, with its own.
	r := runCairnEnv(t, v.passwordEnv(), "compact", v.path("d"))
	if r.code != 0 {
		t.Fatalf("cairn compact: exit %d: %s", r.code, r.stderr)
	}
	out := r.stdout
	if !strings.Contains(out, fmt.Sprintf("1 chunks merged, %d slices into 1", before)) {
		t.Errorf("cairn compact said:\n%s", out)
	}
	v.inspectOK(t, &info, "info", v.path("d", "e", "f"))
	if len(info.Chunks) != 1 || len(info.Chunks[0].Slices) != 1 {
		t.Errorf("after compact: %+v", info.Chunks)
	}
	v.remount(t)
	if !bytes.Equal(readFile(t, v.path("d", "e", "f")), want) {
		t.Errorf("the file reads back wrong after compact")
	}
	if n := gcCount(t, cairnOK(t, v.urlArgs("gc")...), "dead"); n != 0 {
		t.Errorf("%d dead slices wait after compact", n)
	}
	wantUserError(t, runCairn(t, "compact", tempDir(t)), "not inside a cairn mount")

	// gc --compact does the same for the whole volume.
	g, err := os.Create(v.path("g"))
	must(t, err, "create")
	for i := 0; i < 5; i++ {
		_, err := g.Write(want[i*4096 : (i+1)*4096])
		must(t, err, "write")
		must(t, g.Sync(), "fsync")
	}
	must(t, g.Close(), "close")
	out = cairnOK(t, v.urlArgs("gc", "--compact", "--delete")...)
	if !strings.Contains(out, "compacted 2 files: 1 chunks merged, 5 slices into 1") {
		t.Errorf("gc --compact said:\n%s", out)
	}
	v.inspectOK(t, &info, "info", v.path("g"))
	if len(info.Chunks) != 1 || len(info.Chunks[0].Slices) != 1 {
		t.Errorf("after gc --compact: %+v", info.Chunks)
	}
	if !bytes.Equal(readFile(t, v.path("g")), want[:5*4096]) {
		t.Errorf("g reads back wrong after gc --compact")
	}
}

// TestFsckGCBadInput: a volume never formatted, an engine that does not
// answer and a bad --min-age: one line each, and nothing is created.
func TestFsckGCBadInput(t *testing.T) {
	metaURL := newMetaURL(t)
	wantUserError(t, runCairn(t, "fsck", metaURL), "format")
	wantUserError(t, runCairn(t, "gc", metaURL), "format")
	wantUserError(t, runCairn(t, "gc", metaURL, "--delete", "--compact"), "format")
	if path, ok := strings.CutPrefix(metaURL, "sqlite3://"); ok {
		if _, err := os.Stat(path); err == nil {
			t.Errorf("fsck or gc of a volume never formatted created %s", path)
		}
	}
	port := testenv.FreePort(t)
	unreachable := fmt.Sprintf("redis://127.0.0.1:%d/1", port)
	wantUserError(t, runCairn(t, "fsck", unreachable))
	wantUserError(t, runCairn(t, "gc", unreachable, "--delete"))
	wantUserError(t, runCairn(t, "gc", metaURL, "--min-age", "0s"), "min-age")
	wantUserError(t, runCairn(t, "fsck", metaURL, "--threads", "0"), "threads")
	wantUserError(t, runCairn(t, "fsck"), "argument")
}
