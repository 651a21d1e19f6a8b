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

	"cairn/internal/testenv"
)

// TestWarmup writes files through a mount on MinIO (their full blocks do
// not go into the disk cache when written), warms one directory with
// 'cairn warmup' through a second mount, empties the bucket behind
// cairn's back, and reads through a third mount with the same cache
// directory: the warmed files still read whole, from the disk cache,
// while a file left cold fails with EIO.
func TestWarmup(t *testing.T) {
	needMount(t)
	v := s3Volume(t, "warm")
	cache := filepath.Join(tempDir(t), "cache")
	mount := func() *testenv.Mount {
		args := append([]string{"mount", v.meta, v.dir, "--cache-dir", cache}, v.mountArgs...)
		m := testenv.StartMount(t, exec.Command(cairnBin, args...), v.dir)
		return m
	}
	warm := map[string][]byte{
		"d/big":       pattern(41, 4<<20+70<<10),
		"d/sub/other": pattern(42, 5<<20),
		"d/small":     pattern(43, 1000),
	}
	cold := pattern(44, 4<<20+1)
	m := mount()
	must(t, os.MkdirAll(filepath.Join(v.dir, "d", "sub"), 0o755), "mkdir")
	for name, data := range warm {
		writeFile(t, filepath.Join(v.dir, name), data)
	}
	writeFile(t, filepath.Join(v.dir, "cold"), cold)
	must(t, m.Unmount(), "unmount")

	m = mount()
	out := cairnOK(t, "warmup", filepath.Join(v.dir, "d"), "--threads", "2")
	if !strings.Contains(out, "warmed 3 files") {
		t.Errorf("warmup printed %q, want 3 files warmed", out)
	}
	wantUserError(t, runCairn(t, "warmup", tempDir(t)), "not inside a cairn mount")
	wantUserError(t, runCairn(t, "warmup", filepath.Join(v.dir, "missing")), "missing")
	must(t, m.Unmount(), "unmount")

	emptyBucket(t, v.minio, "warm")
	mount()
	for name, data := range warm {
		got, err := os.ReadFile(filepath.Join(v.dir, name))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("warmed %s with the bucket emptied: %d bytes, %v; want it whole from the disk cache", name, len(got), err)
		}
	}
	if _, err := os.ReadFile(filepath.Join(v.dir, "cold")); !errors.Is(err, syscall.EIO) {
		t.Errorf("cold file with the bucket emptied: %v, want EIO (not warmed, so not cached)", err)
	}
}
