package meta_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cairn/meta"
	"cairn/meta/kv"
)

// gatedEngine is a real engine that counts GetAttr calls and can hold
// Mknod calls until a number of them have reached the engine.
type gatedEngine struct {
	meta.Engine
	getattrs atomic.Int64
	together *sync.WaitGroup // when set, each Mknod waits for the others
}

func (e *gatedEngine) GetAttr(ctx context.Context, ino meta.Ino) (meta.Attr, error) {
	e.getattrs.Add(1)
	return e.Engine.GetAttr(ctx, ino)
}

func (e *gatedEngine) Mknod(ctx context.Context, cred meta.Cred, parent meta.Ino, name string, ino meta.Ino, typ meta.FileType, mode uint16, rdev uint32, target string) (meta.Attr, error) {
	if e.together != nil {
		e.together.Done()
		e.together.Wait()
	}
	return e.Engine.Mknod(ctx, cred, parent, name, ino, typ, mode, rdev, target)
}

func newGatedClient(t *testing.T) (*meta.Client, *gatedEngine) {
	t.Helper()
	eng := &gatedEngine{Engine: kv.OpenMem()}
	if err := eng.Init(ctx, meta.Format{Name: "t", BlockSize: 4 << 20, Version: meta.FormatVersion}, false); err != nil {
		t.Fatal(err)
	}
	// An hour: the test must not depend on how fast it runs.
	c := meta.NewClient(eng, meta.ClientConfig{AttrTimeout: time.Hour, EntryTimeout: time.Hour, DirEntryTimeout: time.Hour})
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close(ctx)
		eng.Close()
	})
	return c, eng
}

// After a create, mkdir, link, unlink or rename, the attributes of the
// directories it changed come from the client's cache, derived from the
// answer, and equal the engine's.
func TestClientDerivesParentAttr(t *testing.T) {
	c, eng := newGatedClient(t)
	dir, _, err := c.Mknod(ctx, meta.RootCred, meta.RootIno, "d", meta.TypeDirectory, 0755, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []meta.Ino{meta.RootIno, dir} {
		if _, err := c.GetAttr(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	var file meta.Ino
	steps := []struct {
		what string
		run  func() error
	}{
		{"mkdir", func() error {
			_, _, err := c.Mknod(ctx, meta.RootCred, dir, "sub", meta.TypeDirectory, 0755, 0, "")
			return err
		}},
		{"create", func() (err error) {
			file, _, err = c.Mknod(ctx, meta.RootCred, dir, "f", meta.TypeFile, 0644, 0, "")
			return err
		}},
		{"symlink", func() error {
			_, _, err := c.Mknod(ctx, meta.RootCred, dir, "s", meta.TypeSymlink, 0777, 0, "f")
			return err
		}},
		{"link", func() error { _, err := c.Link(ctx, meta.RootCred, file, dir, "g"); return err }},
		{"unlink of a linked file", func() error { _, _, err := c.Unlink(ctx, meta.RootCred, dir, "g"); return err }},
		{"unlink of the last link", func() error { _, _, err := c.Unlink(ctx, meta.RootCred, dir, "f"); return err }},
		{"rename of a file within the directory", func() error {
			_, _, _, err := c.Rename(ctx, meta.RootCred, dir, "s", dir, "s2", 0)
			return err
		}},
		{"rename of a file out of the directory", func() error {
			_, _, _, err := c.Rename(ctx, meta.RootCred, dir, "s2", meta.RootIno, "s", 0)
			return err
		}},
		{"rename of a directory out of the directory, no replace", func() error {
			_, _, _, err := c.Rename(ctx, meta.RootCred, dir, "sub", meta.RootIno, "sub", meta.RenameNoReplace)
			return err
		}},
		{"rename of a directory back", func() error {
			_, _, _, err := c.Rename(ctx, meta.RootCred, meta.RootIno, "sub", dir, "sub", meta.RenameNoReplace)
			return err
		}},
	}
	for _, s := range steps {
		if err := s.run(); err != nil {
			t.Fatalf("%s: %v", s.what, err)
		}
		for _, d := range []meta.Ino{meta.RootIno, dir} {
			before := eng.getattrs.Load()
			got, err := c.GetAttr(ctx, d)
			if err != nil {
				t.Fatal(err)
			}
			if n := eng.getattrs.Load() - before; n != 0 {
				t.Errorf("after %s: directory %d's attributes cost %d GetAttr calls, want 0", s.what, d, n)
			}
			want, err := eng.Engine.GetAttr(ctx, d)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("after %s: directory %d cached %+v, engine %+v", s.what, d, got, want)
			}
		}
	}
}

// Two creates in one directory at once: the order in which the engine
// applied them is unknown, so the directory's attributes are read again.
func TestClientOverlappingChangesReadParentAgain(t *testing.T) {
	c, eng := newGatedClient(t)
	if _, err := c.GetAttr(ctx, meta.RootIno); err != nil {
		t.Fatal(err)
	}
	eng.together = new(sync.WaitGroup)
	eng.together.Add(2)
	var wg sync.WaitGroup
	for _, name := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, _, err := c.Mknod(ctx, meta.RootCred, meta.RootIno, name, meta.TypeDirectory, 0755, 0, ""); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	before := eng.getattrs.Load()
	got, err := c.GetAttr(ctx, meta.RootIno)
	if err != nil {
		t.Fatal(err)
	}
	if n := eng.getattrs.Load() - before; n != 1 {
		t.Errorf("after two overlapping creates: %d GetAttr calls for the directory, want 1", n)
	}
	if got.Nlink != 4 {
		t.Errorf("root has %d links after two mkdirs, want 4", got.Nlink)
	}
}

// With the trash on, an unlink or rmdir is a rename into the trash: the
// directory's attributes after it are derived all the same.
func TestClientDerivesParentAttrThroughTheTrash(t *testing.T) {
	c, eng := newGatedClient(t)
	c.SetTrashDays(1)
	dir, _, err := c.Mknod(ctx, meta.RootCred, meta.RootIno, "d", meta.TypeDirectory, 0755, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"f", "sub"} {
		typ := meta.TypeFile
		if name == "sub" {
			typ = meta.TypeDirectory
		}
		if _, _, err := c.Mknod(ctx, meta.RootCred, dir, name, typ, 0755, 0, ""); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.GetAttr(ctx, dir); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		what string
		run  func() error
	}{
		{"unlink", func() error { _, _, err := c.Unlink(ctx, meta.RootCred, dir, "f"); return err }},
		{"rmdir", func() error { return c.Rmdir(ctx, meta.RootCred, dir, "sub") }},
	}
	for _, s := range steps {
		if err := s.run(); err != nil {
			t.Fatalf("%s: %v", s.what, err)
		}
		if names, err := c.Readdir(ctx, meta.TrashIno, "", 10, false); err != nil || len(names) != 1 {
			t.Fatalf("after %s: the trash holds %v (%v), want one hour folder", s.what, names, err)
		}
		before := eng.getattrs.Load()
		got, err := c.GetAttr(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		if n := eng.getattrs.Load() - before; n != 0 {
			t.Errorf("after %s: the directory's attributes cost %d GetAttr calls, want 0", s.what, n)
		}
		want, err := eng.Engine.GetAttr(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("after %s: cached %+v, engine %+v", s.what, got, want)
		}
	}
}
