package directio

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestReadAll reads files of awkward lengths with O_DIRECT and wants the
// bytes written through the page cache, and the descriptor usable for
// ordinary reads afterwards when the file system refuses.
func TestReadAll(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{Align, 3*Align + 1, 128<<10 + 10, 4 << 20} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i*13 + n)
		}
		p := filepath.Join(dir, "block")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		fh, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadAll(fh, int64(n))
		if errors.Is(err, ErrRefused) {
			fh.Close()
			t.Skipf("the file system of %s refuses O_DIRECT", dir)
		}
		fh.Close()
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d bytes: read %d bytes back, %v", n, len(got), err)
		}
	}
}
