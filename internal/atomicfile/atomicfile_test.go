package atomicfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteReplacesWholeAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	for i, data := range [][]byte{[]byte("first version"), []byte("2nd"), nil} {
		if err := Write(p, data, ".tmp-", i%2 == 0); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		got, err := os.ReadFile(p)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("after write %d: %q, %v; want %q", i, got, err, data)
		}
	}
	if err := SyncDir(dir); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
	if err := Write(filepath.Join(dir, "missing", "f"), []byte("x"), ".tmp-", false); !os.IsNotExist(err) {
		t.Errorf("write into a missing directory: %v, want not-exist", err)
	}
}
