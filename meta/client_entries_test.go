package meta_test

import (
	"testing"

	"cairn/meta"
)

// A rename between two links of one file changes nothing (rename(2)):
// the client keeps the source name, which the kernel, when its view of
// the two names is stale, may ask for next.
func TestRenameBetweenLinksKeepsTheSource(t *testing.T) {
	c, _ := newGatedClient(t)
	ino, _, err := c.Mknod(ctx, meta.RootCred, meta.RootIno, "a", meta.TypeFile, 0644, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Link(ctx, meta.RootCred, ino, meta.RootIno, "b"); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := c.Rename(ctx, meta.RootCred, meta.RootIno, "a", meta.RootIno, "b", 0); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		if got, _, err := c.Lookup(ctx, meta.RootCred, meta.RootIno, name); err != nil || got != ino {
			t.Errorf("after a rename between two links, %s is inode %d (%v), want %d", name, got, err, ino)
		}
	}
}
