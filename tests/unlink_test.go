package tests

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// blockFiles counts the block objects in a volume's bucket directory (not
// its metadata backups under meta/).
func blockFiles(t testing.TB, bucket string) int {
	t.Helper()
	n := 0
	filepath.WalkDir(bucket, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && p == filepath.Join(bucket, "meta") {
			return filepath.SkipDir // metadata backups, not blocks
		}
		if err == nil && !d.IsDir() && !strings.HasPrefix(d.Name(), ".") {
			n++
		}
		return nil
	})
	return n
}

// TestUnlinkWhileOpen removes a file that is still open: its descriptor
// keeps reading and writing it, and its space is freed at the last close.
func TestUnlinkWhileOpen(t *testing.T) {
	v := newVolume(t)
	path := v.path("doomed")
	data := pattern(11, 32<<20)
	writeFile(t, path, data)
	used0 := usedBytes(statfs(t, v.dir))
	blocks0 := blockFiles(t, v.bucket)
	if blocks0 == 0 {
		t.Fatalf("no blocks in the bucket %s after writing 32 MiB", v.bucket)
	}

	f, err := os.OpenFile(path, os.O_RDWR, 0)
	must(t, err, "open")
	defer f.Close()
	must(t, os.Remove(path), "unlink while open")
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("stat after unlink: %v, want not exist", err)
	}
	fi, err := f.Stat()
	must(t, err, "fstat after unlink")
	if fi.Size() != int64(len(data)) {
		t.Errorf("fstat after unlink: size %d, want %d", fi.Size(), len(data))
	}
	got := make([]byte, len(data))
	_, err = f.ReadAt(got, 0)
	must(t, err, "read after unlink")
	if !bytes.Equal(got, data) {
		t.Errorf("read after unlink: %s", diffBytes(got, data))
	}
	_, err = f.WriteAt([]byte("still writable"), 1<<20)
	must(t, err, "write after unlink")
	must(t, f.Sync(), "fsync after unlink")
	got = make([]byte, 14)
	_, err = f.ReadAt(got, 1<<20)
	must(t, err, "read back")
	if string(got) != "still writable" {
		t.Errorf("read back after unlink: %q", got)
	}
	// A new file of the same name is a different file.
	writeFile(t, path, []byte("new"))
	_, err = f.ReadAt(got, 1<<20)
	must(t, err, "read the old file")
	if string(got) != "still writable" {
		t.Errorf("the unlinked file changed when its name was reused: %q", got)
	}
	must(t, os.Remove(path), "remove the new file")
	if used := usedBytes(statfs(t, v.dir)); used+16<<20 < used0 {
		t.Errorf("space was freed while the file was still open: %d -> %d", used0, used)
	}

	must(t, f.Close(), "last close")
	if !eventually(20*time.Second, func() bool { return usedBytes(statfs(t, v.dir))+30<<20 <= used0 }) {
		t.Errorf("statfs still shows %d bytes used after the last close (was %d with the file)", usedBytes(statfs(t, v.dir)), used0)
	}
	if !eventually(60*time.Second, func() bool { return blockFiles(t, v.bucket) < blocks0 }) {
		t.Errorf("the deleted file's %d blocks are still in the bucket a minute later", blockFiles(t, v.bucket))
	}
}

// TestDeleteFreesSpace checks that removing closed files frees their space
// in statfs and their blocks in the object store.
func TestDeleteFreesSpace(t *testing.T) {
	v := newVolume(t)
	used0 := usedBytes(statfs(t, v.dir))
	for i := range 4 {
		writeFile(t, v.path("f"+string(rune('a'+i))), pattern(uint64(i), 8<<20))
	}
	used1 := usedBytes(statfs(t, v.dir))
	if used1 < used0+32<<20 {
		t.Errorf("statfs used %d after writing 32 MiB, was %d", used1, used0)
	}
	if n := blockFiles(t, v.bucket); n < 8 {
		t.Errorf("only %d objects in the bucket after writing 32 MiB in 4 MiB blocks", n)
	}
	for i := range 4 {
		must(t, os.Remove(v.path("f"+string(rune('a'+i)))), "remove")
	}
	if !eventually(20*time.Second, func() bool { return usedBytes(statfs(t, v.dir)) < used0+1<<20 }) {
		t.Errorf("statfs used %d after removing everything, was %d before", usedBytes(statfs(t, v.dir)), used0)
	}
	if !eventually(60*time.Second, func() bool { return blockFiles(t, v.bucket) == 0 }) {
		t.Errorf("%d objects left in the bucket a minute after every file was removed", blockFiles(t, v.bucket))
	}
}
