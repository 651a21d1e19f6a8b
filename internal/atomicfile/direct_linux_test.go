package atomicfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"cairn/internal/directio"
)

// TestWriteDirect writes blocks of awkward lengths with O_DIRECT and reads
// them back; an unaligned buffer is refused without leaving anything.
func TestWriteDirect(t *testing.T) {
	dir := t.TempDir()
	for i, n := range []int{directio.Align, 4<<20 + 10, 3*directio.Align + 1, 128<<10 + 10} {
		data := make([]byte, n+2*directio.Align)[:n] // a large allocation: page aligned
		if !CanWriteDirect(data) {
			t.Fatalf("%d bytes: a fresh large allocation is not aligned", n)
		}
		for j := range data {
			data[j] = byte(j*7 + n)
		}
		p := filepath.Join(dir, "block")
		err := WriteDirect(p, data, ".tmp-", i%2 == 0)
		if errors.Is(err, ErrNoDirect) {
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
	if err := WriteDirect(filepath.Join(dir, "unaligned"), big[1:], ".tmp-", false); !errors.Is(err, ErrNoDirect) {
		t.Errorf("unaligned buffer: %v, want ErrNoDirect", err)
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 1 {
		t.Errorf("files left: %v, want only the block", left)
	}
}
