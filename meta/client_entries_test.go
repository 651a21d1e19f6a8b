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
	c, counted, d := lookupsInNewDir(t)
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

// A rename the client saw succeed keeps what it knew of the directories'
// names: the source is missing, the destination holds the inode, and the
// other names of a directory it made stay missing without a look-up. An
// exchange, or a move of a file with another link, leaves it unsure.
func TestNamesAfterARename(t *testing.T) {
	c, counted, d := lookupsInNewDir(t)
	f, _, err := c.Mknod(ctx, meta.RootCred, d, "f", meta.TypeFile, 0644, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := c.Rename(ctx, meta.RootCred, d, "f", d, "g", 0); err != nil {
		t.Fatal(err)
	}
	want := func(name string, ino meta.Ino, lookups int64) {
		t.Helper()
		got, _, err := c.Lookup(ctx, meta.RootCred, d, name)
		if ino == 0 && !errors.Is(err, meta.ErrNotFound) || ino != 0 && (err != nil || got != ino) {
			t.Errorf("look-up of %s: inode %d (%v), want %d", name, got, err, ino)
		}
		if n := counted.lookups.Load(); n != lookups {
			t.Errorf("after the look-up of %s, %d look-ups reached the engine, want %d", name, n, lookups)
		}
	}
	want("f", 0, 0)
	want("g", f, 0)
	want("x", 0, 0)

	// A second link: the move's source is no longer known.
	if _, err := c.Link(ctx, meta.RootCred, f, d, "h"); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := c.Rename(ctx, meta.RootCred, d, "g", d, "h", 0); err != nil {
		t.Fatal(err)
	}
	want("g", f, 1)
	want("h", f, 1)

	// An exchange leaves both names and the directory's others unknown.
	e, _, err := c.Mknod(ctx, meta.RootCred, d, "e", meta.TypeFile, 0644, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := c.Rename(ctx, meta.RootCred, d, "e", d, "g", meta.RenameExchange); err != nil {
		t.Fatal(err)
	}
	want("g", e, 2)
	want("e", f, 3)
	want("y", 0, 4)
}

// lookupsInNewDir is a client whose engine counts look-ups, with a
// directory d it just made.
func lookupsInNewDir(t *testing.T) (*meta.Client, *lookupCounter, meta.Ino) {
	t.Helper()
	c, eng := newGatedClient(t)
	counted := &lookupCounter{Engine: eng}
	c = meta.NewClient(counted, c.Config())
	d, _, err := c.Mknod(ctx, meta.RootCred, meta.RootIno, "d", meta.TypeDirectory, 0755, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	return c, counted, d
}
