package tests

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"cairn/internal/testenv"
)

// volume is a formatted cairn volume, mounted or not.
type volume struct {
	name   string
	meta   string // metadata URL
	bucket string // block directory
	dir    string // mount point
	mnt    *testenv.Mount

	mountArgs []string             // flags every mount of it needs (S3 credentials)
	minio     *testenv.MinIOServer // the server holding its blocks, with CAIRN_TEST_STORAGE=s3
}

// tempDir is a fresh directory that every user may enter (t.TempDir's are
// private to root), removed when the test ends, after any mount in it is
// gone: cleanups run last-registered first.
func tempDir(t testing.TB) string {
	t.Helper()
	if shareDir == "" {
		t.Fatal("no shared directory: TestMain did not run")
	}
	dir, err := os.MkdirTemp(shareDir, "t-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		testenv.ForceUnmount(t, dir)
		os.RemoveAll(dir)
	})
	return dir
}

// needMount skips the test (fails it in CI) when this machine cannot mount
// FUSE file systems.
func needMount(t testing.TB) {
	t.Helper()
	needBinary(t)
	testenv.FUSE(t)
}

// formatVolume formats a volume on a fresh database of the engine under
// test, with extra flags for 'cairn format' (the trash off unless they
// say otherwise, see trashOff), and does not mount it.
func formatVolume(t testing.TB, extra ...string) *volume {
	t.Helper()
	needBinary(t)
	v := &volume{name: "test-vol", meta: newMetaURL(t)}
	args := append([]string{"format", v.meta, v.name}, v.storageArgs(t)...)
	args = append(args, trashOff(extra)...)
	cairnOK(t, args...)
	v.dir = filepath.Join(tempDir(t), "mnt")
	if err := os.Mkdir(v.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return v
}

// trashOff is the format flags extra with the trash turned off unless
// extra sets --trash-days: most tests check that a deletion frees space,
// inodes and blocks at once.
func trashOff(extra []string) []string {
	for _, a := range extra {
		if a == "--trash-days" || strings.HasPrefix(a, "--trash-days=") {
			return extra
		}
	}
	return append([]string{"--trash-days", "0"}, extra...)
}

// newVolume formats a volume and mounts it.
func newVolume(t testing.TB, extra ...string) *volume {
	t.Helper()
	needMount(t)
	v := formatVolume(t, extra...)
	v.mount(t)
	return v
}

// mount serves the volume at v.dir with 'cairn mount' in the foreground.
func (v *volume) mount(t testing.TB, extra ...string) {
	t.Helper()
	v.mnt = v.mountAt(t, v.dir, extra...)
}

// mountAt mounts the volume a further time at dir, as another client.
func (v *volume) mountAt(t testing.TB, dir string, extra ...string) *testenv.Mount {
	t.Helper()
	if dir != v.dir && singleProcess() {
		t.Skipf("the %s engine serves one process at a time: no second client", engineName())
	}
	args := append([]string{"mount", v.meta, dir, "--cache-dir", filepath.Join(tempDir(t), "cache")}, v.mountArgs...)
	args = append(args, extra...)
	m := testenv.StartMount(t, exec.Command(cairnBin, args...), dir)
	// The kernel lists the mount before the server has finished starting
	// (and handles its signals from then on); a user's Ctrl-C comes later.
	if !m.WaitOutput("msg=mounted", 30*time.Second) {
		t.Fatalf("%s is mounted but cairn never said it was ready; its output:\n%s", dir, m.Output())
	}
	return m
}

// unmount stops the mount the way Ctrl-C does and checks that it went well.
func (v *volume) unmount(t testing.TB) {
	t.Helper()
	if err := v.mnt.Unmount(); err != nil {
		t.Fatalf("unmount %s: %v; output:\n%s", v.dir, err, v.mnt.Output())
	}
}

// remount unmounts and mounts the volume again at the same place.
func (v *volume) remount(t testing.TB) {
	t.Helper()
	v.unmount(t)
	v.mount(t)
}

// path names a file inside the mounted volume.
func (v *volume) path(elem ...string) string {
	return filepath.Join(append([]string{v.dir}, elem...)...)
}

// result is how one run of the cairn binary ended.
type result struct {
	stdout, stderr string
	code           int
}

// runCairn runs the cairn binary to its end.
func runCairn(t testing.TB, args ...string) result {
	t.Helper()
	needBinary(t)
	return runAs(t, nil, cairnBin, args...)
}

// runAs runs a program as the user cred (nil: as this process).
func runAs(t testing.TB, cred *syscall.Credential, bin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("run %s %v: %v", bin, args, err)
		}
		code = ee.ExitCode()
	}
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// cairnOK runs the cairn binary and fails the test unless it succeeds.
func cairnOK(t testing.TB, args ...string) string {
	t.Helper()
	r := runCairn(t, args...)
	if r.code != 0 {
		t.Fatalf("cairn %s: exit %d\nstderr: %s\nstdout: %s", strings.Join(args, " "), r.code, r.stderr, r.stdout)
	}
	return r.stdout
}

// wantErrno checks that err is the errno want.
func wantErrno(t testing.TB, err error, want syscall.Errno, what string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: succeeded, want %s (%v)", what, errnoName(want), want)
		return
	}
	if !errors.Is(err, want) {
		t.Errorf("%s: %v, want %s (%v)", what, err, errnoName(want), want)
	}
}

// must fails the test at once on an error.
func must(t testing.TB, err error, what string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}
