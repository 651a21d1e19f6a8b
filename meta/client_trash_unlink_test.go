package meta_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"cairn/meta"
	"cairn/meta/kv"
)

// lookupCountingEngine is a real engine that counts its Lookup calls.
type lookupCountingEngine struct {
	meta.Engine
	lookups atomic.Int64
}

func (e *lookupCountingEngine) Lookup(ctx context.Context, parent meta.Ino, name string) (meta.Ino, meta.Attr, error) {
	e.lookups.Add(1)
	return e.Engine.Lookup(ctx, parent, name)
}

// trashClients returns two clients of one volume with the trash on, the
// first counting its engine's look-ups, both caching for an hour (the
// test must not depend on how fast it runs).
func trashClients(t *testing.T) (*meta.Client, *lookupCountingEngine, *meta.Client) {
	eng := &lookupCountingEngine{}
	first, other := trashClientsOver(t, func(mem meta.Engine) meta.Engine {
		eng.Engine = mem
		return eng
	})
	return first, eng, other
}

// trashClientsOver returns two clients of one in-memory volume with the
// trash on, the first through wrap of its engine, both caching for an
// hour.
func trashClientsOver(t *testing.T, wrap func(meta.Engine) meta.Engine) (*meta.Client, *meta.Client) {
	t.Helper()
	mem := kv.OpenMem()
	if err := mem.Init(ctx, meta.Format{Name: "t", BlockSize: 4 << 20, Version: meta.FormatVersion, TrashDays: 1}, false); err != nil {
		t.Fatal(err)
	}
	cfg := meta.ClientConfig{AttrTimeout: time.Hour, EntryTimeout: time.Hour, DirEntryTimeout: time.Hour}
	first, other := meta.NewClient(wrap(mem), cfg), meta.NewClient(mem, cfg)
	for _, c := range []*meta.Client{first, other} {
		if err := c.Start(ctx); err != nil {
			t.Fatal(err)
		}
		c.SetTrashDays(1)
	}
	t.Cleanup(func() {
		first.Close(ctx)
		other.Close(ctx)
		mem.Close()
	})
	return first, other
}

// trashAdded is what the trash's hour folders hold that before did not.
func trashAdded(t *testing.T, e meta.Engine, before []meta.Entry) []meta.Entry {
	t.Helper()
	had := map[string]bool{}
	for _, en := range before {
		had[en.Name] = true
	}
	var added []meta.Entry
	for _, en := range trashEntries(t, e) {
		if !had[en.Name] {
			added = append(added, en)
		}
	}
	return added
}

// trashEntries lists what the trash's hour folders hold.
func trashEntries(t *testing.T, e meta.Engine) []meta.Entry {
	t.Helper()
	hours, err := e.Readdir(ctx, meta.TrashIno, "", 100, false)
	if errors.Is(err, meta.ErrNotFound) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var all []meta.Entry
	for _, h := range hours {
		es, err := e.Readdir(ctx, h.Ino, "", 100, false)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, es...)
	}
	return all
}

// moveAway renames "f" to "away" (a rename that leaves the trash alone).
func moveAway(t *testing.T, c *meta.Client) {
	t.Helper()
	if _, _, _, err := c.Rename(ctx, meta.RootCred, meta.RootIno, "f", meta.RootIno, "away", 0); err != nil {
		t.Fatal(err)
	}
}

// An unlink into the trash of a name the client just looked up (as the
// kernel does before every unlink) costs no look-up of its own; when
// another client changed the name in between, the move is put right.
func TestUnlinkIntoTrashFromCache(t *testing.T) {
	cases := []struct {
		what string
		// change is what the other client does to "f" after the first
		// looked it up; it returns the inode "f" then names.
		change  func(t *testing.T, other *meta.Client, f meta.Ino) meta.Ino
		wantErr error
		// kept is whether the trash then holds the inode "f" named, under
		// the entry name of that inode.
		kept bool
	}{
		{"nothing", func(t *testing.T, other *meta.Client, f meta.Ino) meta.Ino { return f }, nil, true},
		{"replaced by another file", func(t *testing.T, other *meta.Client, f meta.Ino) meta.Ino {
			moveAway(t, other)
			g, _, err := other.Mknod(ctx, meta.RootCred, meta.RootIno, "f", meta.TypeFile, 0644, 0, "")
			if err != nil {
				t.Fatal(err)
			}
			return g
		}, nil, true},
		{"given a second link", func(t *testing.T, other *meta.Client, f meta.Ino) meta.Ino {
			if _, err := other.Link(ctx, meta.RootCred, f, meta.RootIno, "second"); err != nil {
				t.Fatal(err)
			}
			return f
		}, nil, false},
		{"replaced by a directory", func(t *testing.T, other *meta.Client, f meta.Ino) meta.Ino {
			moveAway(t, other)
			d, _, err := other.Mknod(ctx, meta.RootCred, meta.RootIno, "f", meta.TypeDirectory, 0755, 0, "")
			if err != nil {
				t.Fatal(err)
			}
			return d
		}, meta.ErrIsDir, false},
	}
	for _, tc := range cases {
		t.Run(tc.what, func(t *testing.T) {
			c, eng, other := trashClients(t)
			f, _, err := c.Mknod(ctx, meta.RootCred, meta.RootIno, "f", meta.TypeFile, 0644, 0, "")
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := c.Lookup(ctx, meta.RootCred, meta.RootIno, "f"); err != nil {
				t.Fatal(err)
			}
			now := tc.change(t, other, f)
			before := trashEntries(t, eng.Engine)
			lookups := eng.lookups.Load()
			_, _, err = c.Unlink(ctx, meta.RootCred, meta.RootIno, "f")
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("unlink: %v, want %v", err, tc.wantErr)
			}
			if tc.what == "nothing" {
				if n := eng.lookups.Load() - lookups; n != 0 {
					t.Errorf("the unlink cost %d look-ups, want 0", n)
				}
			}
			ino, _, err := eng.Engine.Lookup(ctx, meta.RootIno, "f")
			if tc.wantErr != nil {
				if err != nil || ino != now {
					t.Errorf("after a failed unlink, f names %d (%v), want %d", ino, err, now)
				}
			} else if !errors.Is(err, meta.ErrNotFound) {
				t.Errorf("after the unlink, f names %d (%v), want nothing", ino, err)
			}
			added := trashAdded(t, eng.Engine, before)
			want := 0
			if tc.kept {
				want = 1
			}
			if len(added) != want {
				t.Fatalf("the unlink added %v to the trash, want %d entries", added, want)
			}
			if tc.kept && (added[0].Ino != now || added[0].Name != meta.TrashEntryName(meta.RootIno, now, "f")) {
				t.Errorf("the trash holds %q (inode %d), want inode %d under %q", added[0].Name, added[0].Ino, now, meta.TrashEntryName(meta.RootIno, now, "f"))
			}
		})
	}
}

// A rename onto a name this client holds as missing (every name of a
// directory it just made) that another client made meanwhile does not
// replace that file unseen: it goes to the trash, as the file a rename
// replaces does.
func TestRenameOntoANameMadeElsewhere(t *testing.T) {
	c, other := trashClientsOver(t, func(e meta.Engine) meta.Engine { return e })
	d, _, err := c.Mknod(ctx, meta.RootCred, meta.RootIno, "d", meta.TypeDirectory, 0755, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	v, _, err := other.Mknod(ctx, meta.RootCred, d, "v", meta.TypeFile, 0644, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	tmp, _, err := c.Mknod(ctx, meta.RootCred, d, "tmp", meta.TypeFile, 0644, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	before := trashEntries(t, c.Engine())
	if _, _, _, err := c.Rename(ctx, meta.RootCred, d, "tmp", d, "v", 0); err != nil {
		t.Fatal(err)
	}
	if got, _, err := c.Lookup(ctx, meta.RootCred, d, "v"); err != nil || got != tmp {
		t.Errorf("after the rename, v is inode %d (%v), want %d", got, err, tmp)
	}
	added := trashAdded(t, c.Engine(), before)
	if len(added) != 1 || added[0].Ino != v {
		t.Errorf("the trash gained %v, want the replaced file, inode %d", added, v)
	}
}
