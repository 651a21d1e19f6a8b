package tests

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"cairn/internal/testenv"
)

// controlAddress is the control channel the mount of v publishes in .stats.
func controlAddress(t *testing.T, v *volume) string {
	t.Helper()
	var stats struct {
		Control string `json:"control"`
	}
	must(t, json.Unmarshal(readFile(t, v.path(".stats")), &stats), "decode .stats")
	if stats.Control == "" {
		t.Fatalf(".stats of the mount names no control channel")
	}
	return stats.Control
}

// fragmented writes path in pieces, each fsynced: a slice each.
func fragmented(t *testing.T, path string, pieces int) []byte {
	t.Helper()
	want := pattern(77, pieces*4096)
	f, err := os.Create(path)
	must(t, err, "create "+path)
	for i := range pieces {
		_, err := f.Write(want[i*4096 : (i+1)*4096])
		must(t, err, "write "+path)
		must(t, f.Sync(), "fsync "+path)
	}
	must(t, f.Close(), "close "+path)
	return want
}

// TestControlChannel runs every command given a PATH (info, summary,
// compact, clone, rmr, restore, warmup) through the mount's control
// channel, on every engine (Badger, which one process holds, included)
// and with no password in the environment: each works, and what it
// changed shows at once through the mount, whose kernel caches names and
// attributes for a second here. Then uid 65534 is refused what the file
// system would refuse it, and allowed what it would allow, as itself;
// last, a mount whose channel is gone is one line.
func TestControlChannel(t *testing.T) {
	v := formatVolume(t, "--trash-days", "1")
	v.mount(t)
	address := controlAddress(t, v)
	must(t, os.MkdirAll(v.path("d", "sub"), 0o755), "mkdir d/sub")
	a, b := pattern(1, 300<<10), pattern(2, 5000)
	writeFile(t, v.path("d", "a"), a)
	writeFile(t, v.path("d", "sub", "b"), b)
	frag := fragmented(t, v.path("frag"), 10)

	var info infoJSON
	must(t, json.Unmarshal([]byte(cairnOK(t, "info", v.path("frag"))), &info), "decode info")
	if st := lstat(t, v.path("frag")); info.Ino != st.Ino || len(info.Chunks) != 1 || len(info.Chunks[0].Slices) < 2 {
		t.Fatalf("info of frag: inode %d (stat says %d), chunks %+v; want 10 fsynced writes in several slices", info.Ino, st.Ino, info.Chunks)
	}
	var sum summaryJSON
	must(t, json.Unmarshal([]byte(cairnOK(t, "summary", v.path("d"), "--count")), &sum), "decode summary")
	if sum.Files != 2 || sum.Directories != 2 || sum.Size != uint64(len(a)+len(b)) {
		t.Errorf("summary of d: %+v, want 2 files, 2 directories, %d bytes", sum, len(a)+len(b))
	}

	if out := cairnOK(t, "compact", v.path("frag")); !strings.Contains(out, "1 chunks merged") {
		t.Errorf("cairn compact said %q", out)
	}
	info = infoJSON{}
	must(t, json.Unmarshal([]byte(cairnOK(t, "info", v.path("frag"))), &info), "decode info")
	if len(info.Chunks) != 1 || len(info.Chunks[0].Slices) != 1 {
		t.Errorf("frag after compact: %+v, want one slice", info.Chunks)
	}
	wantContent(t, v.path("frag"), frag)

	if _, err := os.Lstat(v.path("e")); !os.IsNotExist(err) {
		t.Fatalf("e before the clone: %v", err)
	}
	cairnOK(t, "clone", v.path("d"), v.path("e"))
	wantContent(t, v.path("e", "sub", "b"), b)
	wantContent(t, v.path("e", "a"), a)

	// The kernel holds e's name (just read through it): the rmr must make
	// it forget, or e would still show for the entry cache's second.
	cairnOK(t, "rmr", v.path("e"))
	if _, err := os.Lstat(v.path("e")); !os.IsNotExist(err) {
		t.Errorf("e right after rmr: %v, want ENOENT", err)
	}
	out := cairnOK(t, "restore", trashEntry(t, v, "e"))
	if !strings.Contains(out, "restored") {
		t.Errorf("cairn restore said %q", out)
	}
	wantContent(t, v.path("e", "sub", "b"), b)

	if out := cairnOK(t, "warmup", v.path("d"), v.path("frag")); !strings.Contains(out, "warmed 3 files") {
		t.Errorf("cairn warmup said %q", out)
	}

	// uid 65534: refused where the file system refuses it...
	must(t, os.Mkdir(v.path("pub"), 0o777), "mkdir pub")
	must(t, os.Chmod(v.path("pub"), 0o777), "chmod pub")
	must(t, os.WriteFile(v.path("secret"), []byte("s"), 0o600), "write secret")
	must(t, os.Mkdir(v.path("private"), 0o700), "mkdir private")
	nobodyRun := func(args ...string) result { return runAs(t, nobody, cairnBin, args...) }
	wantUserError(t, nobodyRun("rmr", v.path("d", "a")), "permission denied")
	wantContent(t, v.path("d", "a"), a)
	wantUserError(t, nobodyRun("rmr", v.path("d")), "permission denied")
	wantUserError(t, nobodyRun("clone", v.path("secret"), v.path("pub", "stolen")), "permission denied")
	if _, err := os.Lstat(v.path("pub", "stolen")); !os.IsNotExist(err) {
		t.Errorf("a refused clone left pub/stolen: %v", err)
	}
	wantUserError(t, nobodyRun("summary", v.path("private")), "permission denied")
	// From the statistics too, a directory the caller may not list stops
	// the summary, although its entries are not read.
	must(t, os.Mkdir(v.path("pub", "closed"), 0o700), "mkdir pub/closed")
	wantUserError(t, nobodyRun("summary", v.path("pub")), "permission denied")
	wantUserError(t, nobodyRun("compact", v.path("secret")), "permission denied")
	wantUserError(t, nobodyRun("warmup", v.path("secret")), "permission denied")
	wantUserError(t, nobodyRun("warmup", v.path("private")), "permission denied")
	must(t, os.Remove(v.path("d", "sub", "b")), "rm d/sub/b")
	wantUserError(t, nobodyRun("restore", trashEntry(t, v, "b")), "permission denied")
	// ...and allowed, as itself, what it may do.
	must(t, os.Mkdir(v.path("pub", "mine"), 0o755), "mkdir pub/mine")
	writeFile(t, v.path("pub", "mine", "x"), []byte("x"))
	must(t, os.Lchown(v.path("pub", "mine"), 65534, 65534), "chown pub/mine")
	must(t, os.Lchown(v.path("pub", "mine", "x"), 65534, 65534), "chown pub/mine/x")
	if r := nobodyRun("clone", v.path("d", "a"), v.path("pub", "copy")); r.code != 0 {
		t.Errorf("uid 65534 clones d/a into pub: exit %d: %s", r.code, r.stderr)
	} else if st := lstat(t, v.path("pub", "copy")); st.Uid != 65534 {
		t.Errorf("the copy uid 65534 made is owned by %d", st.Uid)
	}
	if r := nobodyRun("rmr", v.path("pub", "mine")); r.code != 0 {
		t.Errorf("uid 65534 removes its own tree: exit %d: %s", r.code, r.stderr)
	} else if _, err := os.Lstat(v.path("pub", "mine")); !os.IsNotExist(err) {
		t.Errorf("pub/mine after uid 65534 removed it: %v", err)
	}

	// Supplementary groups come from the kernel too.
	must(t, os.Mkdir(v.path("group"), 0o775), "mkdir group")
	must(t, os.Chmod(v.path("group"), 0o775), "chmod group")
	must(t, os.Lchown(v.path("group"), 0, 4242), "chgrp group")
	writeFile(t, v.path("group", "x"), []byte("x"))
	writeFile(t, v.path("group", "y"), []byte("y"))
	wantUserError(t, nobodyRun("rmr", v.path("group", "y")), "permission denied")
	inGroup := &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{4242}}
	if r := runAs(t, inGroup, cairnBin, "rmr", v.path("group", "x")); r.code != 0 {
		t.Errorf("uid 65534 in group 4242 removes group/x: exit %d: %s", r.code, r.stderr)
	} else if _, err := os.Lstat(v.path("group", "x")); !os.IsNotExist(err) {
		t.Errorf("group/x after its removal: %v", err)
	}
	wantContent(t, v.path("group", "y"), []byte("y"))

	// A channel that is gone.
	must(t, os.Remove(address), "remove the control socket")
	wantUserError(t, runCairn(t, "info", v.path("frag")), "does not answer on its control channel")
	wantUserError(t, runCairn(t, "rmr", v.path("d")), "does not answer on its control channel")
	wantContent(t, v.path("d", "a"), a)
}

// TestControlRmrInterrupted kills 'cairn rmr' in the middle of a big
// removal: the mount stops the removal (its context is cancelled when the
// connection closes), keeps serving, and a second rmr finishes the job.
// On an engine fast enough to finish before the kill reaches the mount
// (Redis, now and then) there is nothing to stop, which the test logs.
func TestControlRmrInterrupted(t *testing.T) {
	v := newVolume(t)
	const dirs, files = 40, 50
	dir := func(d int) string { return v.path("tree", "d"+strconv.Itoa(d)) }
	for d := range dirs {
		must(t, os.MkdirAll(dir(d), 0o755), "mkdir "+dir(d))
		for f := range files {
			must(t, os.WriteFile(dir(d)+"/f"+strconv.Itoa(f), nil, 0o644), "create")
		}
	}
	count := func() int {
		n := 0
		for d := range dirs {
			es, _ := os.ReadDir(dir(d))
			n += len(es)
		}
		return n
	}
	gone := func() bool {
		_, err := os.Lstat(v.path("tree"))
		return errors.Is(err, syscall.ENOENT)
	}
	cmd := exec.Command(cairnBin, "rmr", "--threads", "1", v.path("tree"))
	must(t, cmd.Start(), "start cairn rmr")
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	interrupted := false
wait:
	for {
		select {
		case err := <-exited:
			t.Logf("cairn rmr ended (%v) before it could be interrupted", err)
			break wait
		case <-time.After(10 * time.Millisecond):
		}
		if count() < dirs*files {
			// It may have ended meanwhile: then the removal was done.
			if err := cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
				t.Fatalf("kill cairn rmr: %v", err)
			}
			<-exited
			interrupted = true
			break
		}
	}
	if interrupted && !gone() && !v.mnt.WaitOutput("cancelled by its command", 10*time.Second) && !gone() {
		t.Errorf("the mount did not stop the removal of a killed rmr; its log:\n%s", v.mnt.Output())
	} else if interrupted && gone() {
		t.Logf("the removal ended before the kill reached the mount")
	}
	writeFile(t, v.path("after"), []byte("after"))
	wantContent(t, v.path("after"), []byte("after"))
	if !gone() {
		cairnOK(t, "rmr", v.path("tree"))
	}
	if !gone() {
		t.Errorf("tree is still there after the second rmr")
	}
}

// TestControlProgressOnTerminal: the count of an rmr done in the mount
// reaches the command's progress bar.
func TestControlProgressOnTerminal(t *testing.T) {
	scriptBin := testenv.Binary(t, []string{"script"})
	v := newVolume(t)
	must(t, os.MkdirAll(v.path("tree", "sub"), 0o755), "mkdir")
	for i := range 40 {
		writeFile(t, v.path("tree", "sub", "f"+strconv.Itoa(i)), nil)
	}
	out, err := exec.Command(scriptBin, "-qec", cairnBin+" rmr '"+v.path("tree")+"'", "/dev/null").CombinedOutput()
	if err != nil {
		t.Fatalf("cairn rmr in a terminal: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "removed") || !strings.Contains(string(out), "42") {
		t.Errorf("rmr of 42 inodes in a terminal shows no count of 42:\n%q", out)
	}
}

// TestControlSubdir: on a --subdir mount, PATHs are resolved from the
// directory it serves (nothing above it is reachable), and a clone or an
// rmr in that directory (the kernel's node 1) shows at once.
func TestControlSubdir(t *testing.T) {
	v := newVolume(t)
	must(t, os.MkdirAll(v.path("proj", "d"), 0o755), "mkdir proj/d")
	writeFile(t, v.path("proj", "d", "f"), []byte("f"))
	writeFile(t, v.path("top"), []byte("top"))
	v.unmount(t)
	v.mount(t, "--subdir", "/proj")
	if _, err := os.Lstat(v.path("e")); !os.IsNotExist(err) {
		t.Fatalf("e before the clone: %v", err)
	}
	cairnOK(t, "clone", v.path("d"), v.path("e"))
	wantContent(t, v.path("e", "f"), []byte("f"))
	var info infoJSON
	must(t, json.Unmarshal([]byte(cairnOK(t, "info", v.path("e", "f"))), &info), "decode info")
	if st := lstat(t, v.path("e", "f")); info.Ino != st.Ino {
		t.Errorf("info of e/f: inode %d, stat says %d", info.Ino, st.Ino)
	}
	cairnOK(t, "rmr", v.path("d"))
	if _, err := os.Lstat(v.path("d")); !os.IsNotExist(err) {
		t.Errorf("d right after rmr: %v, want ENOENT", err)
	}
	wantUserError(t, runCairn(t, "rmr", v.dir), "root of its mount")
	v.unmount(t)
	v.mount(t)
	wantContent(t, v.path("top"), []byte("top"))
	wantContent(t, v.path("proj", "e", "f"), []byte("f"))
}

// TestControlMountGone: a PATH on a mount whose process was killed is one
// line that says what to do.
func TestControlMountGone(t *testing.T) {
	v := newVolume(t)
	must(t, os.Mkdir(v.path("d"), 0o755), "mkdir d")
	killMount(t, v)
	for _, args := range [][]string{{"rmr", v.path("d")}, {"info", v.path("d")}, {"clone", v.path("d"), v.path("e")}} {
		wantUserError(t, runCairn(t, args...), "whose process is gone", "cairn umount --force")
	}
}
