package meta_test

import (
	"errors"
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

// The names of a directory this client just made are missing but for
// those it put there: looking them up costs the engine nothing, until a
// change whose outcome the client does not know.
func TestNamesOfADirectoryJustMade(t *testing.T) {
	c, eng := newGatedClient(t)
	counted := &lookupCounter{Engine: eng}
	c = meta.NewClient(counted, c.Config())
	d, _, err := c.Mknod(ctx, meta.RootCred, meta.RootIno, "d", meta.TypeDirectory, 0755, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	f, _, err := c.Mknod(ctx, meta.RootCred, d, "f", meta.TypeFile, 0644, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Lookup(ctx, meta.RootCred, d, "x"); !errors.Is(err, meta.ErrNotFound) {
		t.Errorf("look-up of a name never made in a new directory: %v, want ErrNotFound", err)
	}
	if got, _, err := c.Lookup(ctx, meta.RootCred, d, "f"); err != nil || got != f {
		t.Errorf("look-up of the file made there: inode %d (%v), want %d", got, err, f)
	}
	if n := counted.lookups.Load(); n != 0 {
		t.Errorf("%d look-ups reached the engine, want 0", n)
	}
	// A create that fails leaves the client unsure of the directory.
	if _, _, err := c.Mknod(ctx, meta.RootCred, d, "f", meta.TypeFile, 0644, 0, ""); !errors.Is(err, meta.ErrExists) {
		t.Fatalf("second create of f: %v, want ErrExists", err)
	}
	if _, _, err := c.Lookup(ctx, meta.RootCred, d, "x"); !errors.Is(err, meta.ErrNotFound) {
		t.Errorf("look-up of a name never made: %v, want ErrNotFound", err)
	}
	if n := counted.lookups.Load(); n != 1 {
		t.Errorf("after a failed create, %d look-ups reached the engine, want 1", n)
	}
}
