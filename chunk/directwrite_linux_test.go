package chunk

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteDirect writes blocks of awkward lengths with O_DIRECT and reads
// them back; an unaligned buffer is refused without leaving anything.
func TestWriteDirect(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{directAlign, 4<<20 + headerSize, 3*directAlign + 1, 128<<10 + headerSize} {
		data := make([]byte, n+2*directAlign)[:n] // a large allocation: page aligned
		if !canWriteDirect(data) {
			t.Fatalf("%d bytes: a fresh large allocation is not aligned", n)
		}
		copy(data, pattern(uint64(n), n))
		p := filepath.Join(dir, "block")
		err := writeDirect(p, data, diskTempPrefix)
		if errors.Is(err, errNoDirect) {
			t.Skipf("the file system of %s refuses O_DIRECT", dir)
		}
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		got, err := os.ReadFile(p)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d bytes: read back %d bytes (%v), not what was written", n, len(got), err)
		}
	}
	big := make([]byte, 1<<20)
	if err := writeDirect(filepath.Join(dir, "unaligned"), big[1:], diskTempPrefix); !errors.Is(err, errNoDirect) {
		t.Errorf("unaligned buffer: %v, want errNoDirect", err)
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 1 {
		t.Errorf("files left: %v, want only the block", left)
	}
}
