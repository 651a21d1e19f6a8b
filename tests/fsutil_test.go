package tests

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// pattern is n bytes of seeded pseudo-random data, different for every
// seed, so that a block read from the wrong place shows.
func pattern(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := 0; i+8 <= n; i += 8 {
		v := r.Uint64()
		for j := 0; j < 8; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	for i := n &^ 7; i < n; i++ {
		b[i] = byte(r.Uint32())
	}
	return b
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	must(t, os.WriteFile(path, data, 0o644), "write "+path)
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err, "read "+path)
	return b
}

// wantContent checks a file's bytes, naming the first difference.
func wantContent(t testing.TB, path string, want []byte) {
	t.Helper()
	got := readFile(t, path)
	if !bytes.Equal(got, want) {
		t.Errorf("%s: %s", path, diffBytes(got, want))
	}
}

// diffBytes describes how got differs from want.
func diffBytes(got, want []byte) string {
	d := ""
	if len(got) != len(want) {
		d = fmt.Sprintf("length %d, want %d", len(got), len(want))
	}
	for i := 0; i < min(len(got), len(want)); i++ {
		if got[i] != want[i] {
			return d + fmt.Sprintf("; first difference at offset %d: got %#x, want %#x", i, got[i], want[i])
		}
	}
	return d
}

// lstat returns the raw attributes of path.
func lstat(t testing.TB, path string) unix.Stat_t {
	t.Helper()
	var st unix.Stat_t
	must(t, unix.Lstat(path, &st), "lstat "+path)
	return st
}

func tsNano(ts unix.Timespec) int64 { return ts.Sec*1e9 + ts.Nsec }

// tick waits long enough that a clock read before it and one after differ
// visibly.
func tick() { time.Sleep(20 * time.Millisecond) }

// statfs returns the file-system statistics of path.
func statfs(t testing.TB, path string) unix.Statfs_t {
	t.Helper()
	var st unix.Statfs_t
	must(t, unix.Statfs(path, &st), "statfs "+path)
	return st
}

// usedBytes is the space statfs reports in use.
func usedBytes(st unix.Statfs_t) uint64 {
	return (st.Blocks - st.Bfree) * uint64(st.Bsize)
}

// eventually polls cond until it holds or timeout passes.
func eventually(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}
