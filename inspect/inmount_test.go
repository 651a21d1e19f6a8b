package inspect

import (
	"os"
	"path/filepath"
	"testing"
)

// TestInMount: a path's place from its mount's root, with the symbolic
// links of its directories resolved and its last name kept as it is.
func TestInMount(t *testing.T) {
	base := t.TempDir()
	mnt := filepath.Join(base, "mnt")
	for _, d := range []string{"mnt/a/b", "outside"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"mnt/a/up":    "..",                           // inside the mount
		"mnt/a/out":   filepath.Join(base, "outside"), // leaves it
		"mnt/a/root":  mnt,                            // the root, as a link
		"to-mnt":      mnt,                            // a link outside, to the root
		"via":         base,                           // a directory above the mount
		"mnt/a/b/dir": filepath.Join(mnt, "a", "b"),   // a directory
	} {
		if err := os.Symlink(target, filepath.Join(base, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		path, want string // want "": refused
	}{
		{"mnt", "/"},
		{"to-mnt", ""},
		{"via/mnt", "/"},
		{"mnt/a/b", "/a/b"},
		{"mnt/a/up/a/b", "/a/b"},
		{"mnt/a/root", "/a/root"},
		{"mnt/a/b/dir/new", "/a/b/new"},
		{"mnt/a/out/x", ""},
	} {
		got, err := InMount(filepath.Join(base, c.path), mnt)
		if c.want == "" {
			if err == nil {
				t.Errorf("InMount(%s) = %q, want a refusal", c.path, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("InMount(%s) = %q, %v; want %q", c.path, got, err, c.want)
		}
	}
}
