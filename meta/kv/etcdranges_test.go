package kv

import (
	"context"
	"errors"
	"testing"

	"cairn/meta"
)

// The removal of an inode the client created itself commits in one
// request: the cache knows the inode's keys from its creation, so the scan
// of them runs on cached values. A key another client added to the range
// since (here without touching any key the first one reads) makes that
// commit fail, and the removal runs again on what the cluster holds.
func TestEtcdKnownRanges(t *testing.T) {
	ctx := context.Background()
	a, b := twoEtcdClients(t, "ranges")
	root := meta.RootCred
	create := func(name string, ino meta.Ino, typ meta.FileType) {
		t.Helper()
		if _, err := a.Mknod(ctx, root, meta.RootIno, name, ino, typ, 0755, 0, ""); err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
	}
	requests := func(what string, want uint64, op func() error) {
		t.Helper()
		before := a.Stats().RoundTrips
		if err := op(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if n := a.Stats().RoundTrips - before; n != want {
			t.Errorf("%s took %d requests, want %d", what, n, want)
		}
	}
	// b adds a key to an inode's range behind a's back: no key a reads
	// changes, only the range.
	sneak := func(key []byte) {
		t.Helper()
		if err := b.store.Txn(ctx, func(tx Tx) error {
			tx.Put(key, []byte("sneaked"))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}

	create("d", 100, meta.TypeDirectory)
	requests("rmdir of a directory the client made", 1, func() error {
		return a.Rmdir(ctx, root, meta.RootIno, "d")
	})
	create("f", 101, meta.TypeFile)
	requests("unlink of a file the client made", 1, func() error {
		_, _, deleted, err := a.UnlinkDelete(ctx, root, meta.RootIno, "f", 1, 101)
		if err == nil && !deleted {
			err = errors.New("the file was not deleted with its last link")
		}
		return err
	})

	// A move of an empty directory (an rmdir into the trash) scans only
	// the directory's entries, a part of the range the cache knows.
	create("m", 104, meta.TypeDirectory)
	create("n", 105, meta.TypeDirectory)
	emptyMove := meta.RenameNoReplace | meta.RenameEmptyDir
	requests("move of an empty directory the client made", 1, func() error {
		_, _, _, err := a.Rename(ctx, root, meta.RootIno, "m", meta.RootIno, "m2", emptyMove, 1)
		return err
	})
	sneak(a.k.entry(105, "x"))
	if _, _, _, err := a.Rename(ctx, root, meta.RootIno, "n", meta.RootIno, "n2", emptyMove, 1); !errors.Is(err, meta.ErrNotEmpty) {
		t.Fatalf("move of a directory another client put an entry in, as empty: %v, want ENOTEMPTY", err)
	}

	// A write of a file's data and the creation and removal of a
	// directory's entries carry what the cache knows of the range.
	create("w", 106, meta.TypeFile)
	if _, _, err := a.Write(ctx, 106, 0, meta.Slice{ID: 1, Size: 4096, Len: 4096}, 1); err != nil {
		t.Fatal(err)
	}
	requests("unlink of a file the client made and wrote", 1, func() error {
		_, _, deleted, err := a.UnlinkDelete(ctx, root, meta.RootIno, "w", 1, 106)
		if err == nil && !deleted {
			err = errors.New("the file was not deleted with its last link")
		}
		return err
	})
	create("p", 107, meta.TypeDirectory)
	if _, err := a.Mknod(ctx, root, 107, "child", 108, meta.TypeFile, 0644, 0, ""); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := a.UnlinkDelete(ctx, root, 107, "child", 1, 108); err != nil {
		t.Fatal(err)
	}
	requests("rmdir of a directory the client made, filled and emptied", 1, func() error {
		return a.Rmdir(ctx, root, meta.RootIno, "p")
	})

	create("q", 110, meta.TypeDirectory)
	if _, err := a.Mknod(ctx, root, 110, "child", 111, meta.TypeFile, 0644, 0, ""); err != nil {
		t.Fatal(err)
	}
	sneak(a.k.entry(110, "x"))
	if err := a.Rmdir(ctx, root, meta.RootIno, "q"); !errors.Is(err, meta.ErrNotEmpty) {
		t.Fatalf("rmdir of a directory another client put an entry in after this one's create: %v, want ENOTEMPTY", err)
	}
	if _, _, _, err := a.UnlinkDelete(ctx, root, 110, "child", 1, 111); err != nil {
		t.Fatal(err)
	}
	if err := a.Rmdir(ctx, root, meta.RootIno, "q"); !errors.Is(err, meta.ErrNotEmpty) {
		t.Fatalf("rmdir of a directory holding another client's entry: %v, want ENOTEMPTY", err)
	}

	create("e", 102, meta.TypeDirectory)
	sneak(a.k.entry(102, "x"))
	if err := a.Rmdir(ctx, root, meta.RootIno, "e"); !errors.Is(err, meta.ErrNotEmpty) {
		t.Fatalf("rmdir of a directory another client put an entry in: %v, want ENOTEMPTY", err)
	}

	create("g", 103, meta.TypeFile)
	sneak(a.k.xattr(103, "user.sneaked"))
	if _, _, _, err := a.UnlinkDelete(ctx, root, meta.RootIno, "g", 1, 103); err != nil {
		t.Fatal(err)
	}
	if err := b.store.Txn(ctx, func(tx Tx) error {
		begin, end := b.k.inodeRange(103)
		left, err := tx.Scan(begin, end, 0)
		if err == nil && len(left) > 0 {
			t.Errorf("unlink left %d keys of the deleted inode (the one another client added)", len(left))
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
}
