package meta_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

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
		// A name the client does not know costs one look-up, or a
		// listing of the directory once enough were found missing
		// (relistIfDue).
		if n := counted.lookups.Load() + counted.readdirs.Load(); n != lookups {
			t.Errorf("after the look-up of %s, %d look-ups and listings reached the engine, want %d", name, n, lookups)
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
	// g and e were there: only y counts towards a listing.
	if n := counted.readdirs.Load(); n != 0 {
		t.Errorf("one name found missing cost %d listings, want 0 (relistIfDue)", n)
	}
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

// When the time a new directory's names are known missing ends while the
// client still works there, the look-ups that go to the engine soon cost
// as much as a listing: the client lists the directory again and knows
// all its names for another entry cache duration. The listing holds what
// another client made meanwhile; a change this client makes while the
// listing runs makes it stale, and it is not used.
func TestNamesOfADirectoryListedAgain(t *testing.T) {
	const ttl = time.Second
	c, eng := newGatedClient(t)
	cfg := c.Config()
	cfg.EntryTimeout, cfg.DirEntryTimeout = ttl, ttl
	counted := &lookupCounter{Engine: eng}
	c = meta.NewClient(counted, cfg)
	other := meta.NewClient(eng, cfg)
	d, _, err := c.Mknod(ctx, meta.RootCred, meta.RootIno, "d", meta.TypeDirectory, 0755, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	made := map[string]meta.Ino{}
	for _, name := range []string{"f1", "f2", "f3"} {
		ino, _, err := c.Mknod(ctx, meta.RootCred, d, name, meta.TypeFile, 0644, 0, "")
		if err != nil {
			t.Fatal(err)
		}
		made[name] = ino
	}
	z, _, err := other.Mknod(ctx, meta.RootCred, d, "z", meta.TypeFile, 0644, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	requests := func() (int64, int64) { return counted.lookups.Load(), counted.readdirs.Load() }
	want := func(name string, ino meta.Ino, lookups, readdirs int64) {
		t.Helper()
		got, _, err := c.Lookup(ctx, meta.RootCred, d, name)
		if ino == 0 && !errors.Is(err, meta.ErrNotFound) || ino != 0 && (err != nil || got != ino) {
			t.Errorf("look-up of %s: inode %d (%v), want %d", name, got, err, ino)
		}
		if l, r := requests(); l != lookups || r != readdirs {
			t.Errorf("after the look-up of %s: %d look-ups and %d listings reached the engine, want %d and %d", name, l, r, lookups, readdirs)
		}
	}
	// Within the window, another client's create is not seen yet.
	want("z", 0, 0, 0)
	time.Sleep(ttl + ttl/2)
	// After it, the first look-ups go to the engine; once four found
	// their name missing, the next lists d.
	want("x1", 0, 1, 0)
	want("x2", 0, 2, 0)
	want("x3", 0, 3, 0)
	want("x4", 0, 4, 0)
	want("x5", 0, 4, 1)
	// The listing knows every name: the missing ones without the engine,
	// z as there (its attributes need a look-up), f1 from the caches.
	want("x6", 0, 4, 1)
	want("f1", made["f1"], 4, 1)
	want("z", z, 5, 1)

	// The next time, this client removes f2 while the listing runs: the
	// listing, which still holds f2, is dropped.
	time.Sleep(ttl + ttl/2)
	counted.afterReaddir = func() {
		counted.afterReaddir = nil
		if _, _, err := c.Unlink(ctx, meta.RootCred, d, "f2"); err != nil {
			t.Error(err)
		}
	}
	want("y1", 0, 6, 1)
	want("y2", 0, 7, 1)
	want("y3", 0, 8, 1)
	want("y4", 0, 9, 1)
	want("y5", 0, 10, 2)
	want("f2", 0, 10, 2)
	want("y6", 0, 11, 2)
}

// dirWithFiles makes directory name in the root, holding files f0, f1…,
// through client c.
func dirWithFiles(t *testing.T, c *meta.Client, name string, files int) meta.Ino {
	t.Helper()
	d, _, err := c.Mknod(ctx, meta.RootCred, meta.RootIno, name, meta.TypeDirectory, 0755, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	for i := range files {
		if _, _, err := c.Mknod(ctx, meta.RootCred, d, fmt.Sprintf("f%d", i), meta.TypeFile, 0644, 0, ""); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// A directory this client did not make (another mount's, or one made
// before this mount started) is listed once four look-ups found names
// missing there, and its names are known from then on as in a directory
// made here. A listing reads at most twice the names the look-ups paid
// for: a bigger directory waits for as many more look-ups and is listed
// with twice the bound, and one past the largest bound is not listed
// again.
func TestNamesOfADirectoryMadeElsewhere(t *testing.T) {
	c, eng := newGatedClient(t)
	counted := &lookupCounter{Engine: eng}
	c = meta.NewClient(counted, c.Config())
	other := meta.NewClient(eng, c.Config())
	// look looks up n names of d that are missing and returns how many
	// look-ups and listings reached the engine.
	next := 0
	look := func(d meta.Ino, n int) (lookups, readdirs int64) {
		t.Helper()
		l, r := counted.lookups.Load(), counted.readdirs.Load()
		for range n {
			next++
			if _, _, err := c.Lookup(ctx, meta.RootCred, d, fmt.Sprintf("x%d", next)); !errors.Is(err, meta.ErrNotFound) {
				t.Fatalf("look-up of a missing name: %v, want ErrNotFound", err)
			}
		}
		return counted.lookups.Load() - l, counted.readdirs.Load() - r
	}

	small := dirWithFiles(t, other, "small", 3)
	if l, r := look(small, 4); l != 4 || r != 0 {
		t.Errorf("the first four missing names: %d look-ups and %d listings, want 4 and 0", l, r)
	}
	if l, r := look(small, 100); l != 0 || r != 1 {
		t.Errorf("100 missing names after four: %d look-ups and %d listings, want 0 and 1", l, r)
	}
	if got, _, err := c.Lookup(ctx, meta.RootCred, small, "f1"); err != nil || got == 0 {
		t.Errorf("look-up of a listed name: inode %d (%v)", got, err)
	}

	// 600 names: the first listing (at most 512 names, one page) stops
	// short; the second, after eight more look-ups, reads them all.
	mid := dirWithFiles(t, other, "mid", 600)
	if l, r := look(mid, 4); l != 4 || r != 0 {
		t.Errorf("the first four missing names: %d look-ups and %d listings, want 4 and 0", l, r)
	}
	if l, r := look(mid, 8); l != 8 || r != 1 {
		t.Errorf("the next eight: %d look-ups and %d listings, want 8 and 1 (a listing that stopped at 512 names)", l, r)
	}
	if l, r := look(mid, 100); l != 0 || r != 1 {
		t.Errorf("the next 100: %d look-ups and %d listings, want 0 and 1", l, r)
	}

	// Past the largest bound, the directory goes back to look-ups. Each
	// listing on the way read at most one name more than its bound:
	// 512, 1,024 ... 16,384.
	big := dirWithFiles(t, other, "big", 1<<14+1)
	listed := counted.listed.Load()
	look(big, 1000)
	if l, r := look(big, 1000); l != 1000 || r != 0 {
		t.Errorf("1000 missing names in a directory too big to list, after 1000 others: %d look-ups and %d listings, want 1000 and 0", l, r)
	}
	most := int64(0)
	for bound := 512; bound <= 1<<14; bound *= 2 {
		most += int64(bound) + 1
	}
	if n := counted.listed.Load() - listed; n > most {
		t.Errorf("the listings of a directory too big to list read %d names, want at most %d", n, most)
	}
}

// A look-up of a name longer than a name may be is ENAMETOOLONG, also in
// a directory whose names the client knows as a whole.
func TestLongNameInAWindow(t *testing.T) {
	c, _, d := lookupsInNewDir(t)
	long := strings.Repeat("n", meta.MaxName+1)
	if _, _, err := c.Lookup(ctx, meta.RootCred, d, long); !errors.Is(err, meta.ErrNameTooLong) {
		t.Errorf("look-up of a %d-byte name: %v, want ENAMETOOLONG", len(long), err)
	}
}

// Look-ups of names that exist, each asked again once the entry cache
// duration ended (the kernel does), lead to a listing with attributes
// once four went to the engine: the other names and their attributes
// come from it. A change this client makes to an inode's attributes
// while the listing runs is not replaced by the listing's older copy.
func TestAttributesOfADirectoryListed(t *testing.T) {
	const ttl = time.Second
	c, eng := newGatedClient(t)
	cfg := c.Config()
	cfg.EntryTimeout, cfg.DirEntryTimeout, cfg.AttrTimeout = ttl, ttl, ttl
	counted := &lookupCounter{Engine: eng}
	c = meta.NewClient(counted, cfg)
	other := meta.NewClient(eng, cfg)
	const files = 40
	d := dirWithFiles(t, other, "d", files)
	sub, _, err := other.Mknod(ctx, meta.RootCred, d, "sub", meta.TypeDirectory, 0755, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	requests := func() (int64, int64) { return counted.lookups.Load(), counted.readdirs.Load() }
	lookAll := func() {
		t.Helper()
		for i := range files {
			if _, a, err := c.Lookup(ctx, meta.RootCred, d, fmt.Sprintf("f%d", i)); err != nil || a.Type != meta.TypeFile {
				t.Fatalf("look-up of f%d: %v, %v", i, a.Type, err)
			}
		}
	}
	lookAll()
	if l, r := requests(); l != 4 || r != 1 {
		t.Errorf("%d look-ups of names that exist: %d went to the engine and %d listings, want 4 and 1", files, l, r)
	}
	if _, _, err := c.Lookup(ctx, meta.RootCred, d, "x"); !errors.Is(err, meta.ErrNotFound) {
		t.Errorf("look-up of a missing name after the listing: %v, want ErrNotFound", err)
	}
	if l, r := requests(); l != 4 || r != 1 {
		t.Errorf("after a missing name: %d look-ups and %d listings, want 4 and 1 (the listing knows every name)", l, r)
	}

	time.Sleep(ttl + ttl/2)
	f10, _, err := c.Lookup(ctx, meta.RootCred, d, "f10")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Lookup(ctx, meta.RootCred, d, "sub"); err != nil {
		t.Fatal(err)
	}
	mode := uint16(0600)
	counted.afterReaddir = func() {
		counted.afterReaddir = nil
		if _, err := c.SetAttr(ctx, meta.RootCred, f10, meta.SetAttr{Mode: &mode}); err != nil {
			t.Error(err)
		}
		// sub's attributes change too (its link count, derived here).
		if _, _, err := c.Mknod(ctx, meta.RootCred, sub, "inner", meta.TypeDirectory, 0755, 0, ""); err != nil {
			t.Error(err)
		}
	}
	lookAll()
	// f10 and sub, then four of lookAll's: the fourth lists.
	if l, r := requests(); l != 8 || r != 2 {
		t.Errorf("the second time: %d look-ups and %d listings in all, want 8 and 2", l, r)
	}
	if _, a, err := c.Lookup(ctx, meta.RootCred, d, "f10"); err != nil || a.Mode != mode {
		t.Errorf("f10 after a chmod during the listing: mode %o (%v), want %o", a.Mode, err, mode)
	}
	if _, a, err := c.Lookup(ctx, meta.RootCred, d, "sub"); err != nil || a.Nlink != 3 {
		t.Errorf("sub after a mkdir in it during the listing: %d links (%v), want 3", a.Nlink, err)
	}
}

// A readdirplus page does not replace attributes this client changed
// while the page was read: the kernel lists a directory while a process
// chmods a file in it.
func TestReaddirPlusKeepsNewerAttributes(t *testing.T) {
	c, eng := newGatedClient(t)
	counted := &lookupCounter{Engine: eng}
	c = meta.NewClient(counted, c.Config())
	d := dirWithFiles(t, c, "d", 3)
	f1, _, err := c.Lookup(ctx, meta.RootCred, d, "f1")
	if err != nil {
		t.Fatal(err)
	}
	mode := uint16(0600)
	counted.afterReaddir = func() {
		counted.afterReaddir = nil
		if _, err := c.SetAttr(ctx, meta.RootCred, f1, meta.SetAttr{Mode: &mode}); err != nil {
			t.Error(err)
		}
	}
	if _, err := c.Readdir(ctx, d, "", 100, true); err != nil {
		t.Fatal(err)
	}
	if a, err := c.GetAttr(ctx, f1); err != nil || a.Mode != mode {
		t.Errorf("f1 after a chmod during a readdirplus: mode %o (%v), want %o", a.Mode, err, mode)
	}
}

// After a listing without attributes (due to names found missing), the
// names that exist are known but not their attributes: look-ups of them
// lead to a listing with attributes all the same.
func TestAttributesAfterAListingOfNames(t *testing.T) {
	c, eng := newGatedClient(t)
	counted := &lookupCounter{Engine: eng}
	c = meta.NewClient(counted, c.Config())
	other := meta.NewClient(eng, c.Config())
	const files = 40
	d := dirWithFiles(t, other, "d", files)
	for i := range 5 {
		if _, _, err := c.Lookup(ctx, meta.RootCred, d, fmt.Sprintf("x%d", i)); !errors.Is(err, meta.ErrNotFound) {
			t.Fatalf("look-up of a missing name: %v", err)
		}
	}
	for i := range files {
		if _, a, err := c.Lookup(ctx, meta.RootCred, d, fmt.Sprintf("f%d", i)); err != nil || a.Type != meta.TypeFile {
			t.Fatalf("look-up of f%d: %v, %v", i, a.Type, err)
		}
	}
	if l, r := counted.lookups.Load(), counted.readdirs.Load(); l != 8 || r != 2 {
		t.Errorf("5 missing names, then %d that exist: %d look-ups and %d listings, want 8 and 2", files, l, r)
	}
}

// A look-up's answer does not replace what a change of this client stored
// after the look-up was asked: the kernel may look a name up while this
// client creates it, and the create must stay visible here.
func TestLookupAnswerAfterOwnCreate(t *testing.T) {
	c, counted, _ := lookupsInNewDir(t)
	var made meta.Ino
	counted.afterLookup = func() {
		counted.afterLookup = nil
		var err error
		if made, _, err = c.Mknod(ctx, meta.RootCred, meta.RootIno, "x", meta.TypeFile, 0644, 0, ""); err != nil {
			t.Error(err)
		}
	}
	if _, _, err := c.Lookup(ctx, meta.RootCred, meta.RootIno, "x"); !errors.Is(err, meta.ErrNotFound) {
		t.Fatalf("look-up asked before the create: %v, want ErrNotFound", err)
	}
	if got, _, err := c.Lookup(ctx, meta.RootCred, meta.RootIno, "x"); err != nil || got != made {
		t.Errorf("look-up after the create: inode %d (%v), want %d", got, err, made)
	}
}
