package tests

import (
	"bytes"
	"os"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// residentPages opens path (the open under test), maps it and counts how
// many of its pages are in the kernel's page cache, without reading them.
func residentPages(t testing.TB, path string) (resident, total int) {
	t.Helper()
	f, err := os.Open(path)
	must(t, err, "open "+path)
	defer f.Close()
	fi, err := f.Stat()
	must(t, err, "stat "+path)
	m, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
	must(t, err, "mmap "+path)
	defer unix.Munmap(m)
	page := os.Getpagesize()
	vec := make([]byte, (len(m)+page-1)/page)
	if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		t.Fatalf("mincore: %v", e)
	}
	for _, v := range vec {
		if v&1 != 0 {
			resident++
		}
	}
	return resident, len(vec)
}

// TestPageCacheKeptAcrossOpens: a file that did not change is read from
// the kernel's page cache at its next open; once another client changes
// it, the next open drops the cache and reads the new bytes.
func TestPageCacheKeptAcrossOpens(t *testing.T) {
	v := newVolume(t)
	old := pattern(71, 4<<20)
	writeFile(t, v.path("f"), old)
	readFile(t, v.path("f")) // the open after create: remembered
	if got := readFile(t, v.path("f")); !bytes.Equal(got, old) {
		t.Fatal("file reads back wrong")
	}
	if n, total := residentPages(t, v.path("f")); n != total {
		t.Errorf("unchanged file: %d of %d pages in the page cache after a new open, want all", n, total)
	}

	other := v.mountAt(t, tempDir(t))
	new := pattern(72, 4<<20)
	writeFile(t, other.Dir+"/f", new)
	if n, _ := residentPages(t, v.path("f")); n != 0 {
		t.Errorf("file changed by another client: %d pages kept in the page cache at open, want none", n)
	}
	if got := readFile(t, v.path("f")); !bytes.Equal(got, new) {
		t.Errorf("file changed by another client reads stale bytes")
	}
}
