package meta_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"cairn/meta"
)

// rmdirEngine is a real engine that counts the reads an rmdir into the
// trash could make before its move, and runs beforeRename (once) when a
// rename arrives: what another client does between a client's look at a
// directory and its move.
type rmdirEngine struct {
	meta.Engine
	reads        atomic.Int64
	beforeRename func()
}

func (e *rmdirEngine) Lookup(ctx context.Context, parent meta.Ino, name string) (meta.Ino, meta.Attr, error) {
	e.reads.Add(1)
	return e.Engine.Lookup(ctx, parent, name)
}

func (e *rmdirEngine) Readdir(ctx context.Context, ino meta.Ino, after string, limit int, plus bool) ([]meta.Entry, error) {
	e.reads.Add(1)
	return e.Engine.Readdir(ctx, ino, after, limit, plus)
}

func (e *rmdirEngine) Rename(ctx context.Context, cred meta.Cred, sp meta.Ino, sn string, dp meta.Ino, dn string, flags uint32, sid uint64) (meta.Ino, meta.Attr, meta.Ino, error) {
	if f := e.beforeRename; f != nil {
		e.beforeRename = nil
		f()
	}
	return e.Engine.Rename(ctx, cred, sp, sn, dp, dn, flags, sid)
}

// rmdirClients returns two clients of one volume with the trash on, the
// first through an rmdirEngine, both caching for an hour.
func rmdirClients(t *testing.T) (*meta.Client, *rmdirEngine, *meta.Client) {
	eng := &rmdirEngine{}
	first, other := trashClientsOver(t, func(mem meta.Engine) meta.Engine {
		eng.Engine = mem
		return eng
	})
	return first, eng, other
}

// An rmdir into the trash of a directory the client just looked up (as
// the kernel does before every rmdir) is its one move, which refuses a
// directory another client has put an entry in, before the rmdir or
// between the client's look and its move; a name another client changed
// meanwhile gets the answer rmdir(2) gives on what the name is now.
func TestRmdirIntoTrashFromCache(t *testing.T) {
	mkdir := func(t *testing.T, c *meta.Client, parent meta.Ino, name string) meta.Ino {
		ino, _, err := c.Mknod(ctx, meta.RootCred, parent, name, meta.TypeDirectory, 0o755, 0, "")
		if err != nil {
			t.Fatal(err)
		}
		return ino
	}
	create := func(t *testing.T, c *meta.Client, parent meta.Ino, name string) meta.Ino {
		ino, _, err := c.Mknod(ctx, meta.RootCred, parent, name, meta.TypeFile, 0o644, 0, "")
		if err != nil {
			t.Fatal(err)
		}
		return ino
	}
	moveAway := func(t *testing.T, c *meta.Client) {
		if _, _, _, err := c.Rename(ctx, meta.RootCred, meta.RootIno, "d", meta.RootIno, "away", 0); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		what string
		// change is what the other client does after the first looked
		// "d" up; it returns the inode "d" then names (0: none).
		change func(t *testing.T, other *meta.Client, d meta.Ino) meta.Ino
		// racing is what the other client does right before the move.
		racing  func(t *testing.T, other *meta.Client, d meta.Ino)
		wantErr error
	}{
		{"nothing", nil, nil, nil},
		{"given an entry", func(t *testing.T, other *meta.Client, d meta.Ino) meta.Ino {
			create(t, other, d, "x")
			return d
		}, nil, meta.ErrNotEmpty},
		{"given an entry right before the move", nil, func(t *testing.T, other *meta.Client, d meta.Ino) {
			mkdir(t, other, d, "x")
		}, meta.ErrNotEmpty},
		{"replaced by another directory", func(t *testing.T, other *meta.Client, d meta.Ino) meta.Ino {
			moveAway(t, other)
			return mkdir(t, other, meta.RootIno, "d")
		}, nil, nil},
		{"replaced by a file", func(t *testing.T, other *meta.Client, d meta.Ino) meta.Ino {
			moveAway(t, other)
			return create(t, other, meta.RootIno, "d")
		}, nil, meta.ErrNotDir},
		{"removed", func(t *testing.T, other *meta.Client, d meta.Ino) meta.Ino {
			moveAway(t, other)
			return 0
		}, nil, meta.ErrNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.what, func(t *testing.T) {
			c, eng, other := rmdirClients(t)
			d := mkdir(t, c, meta.RootIno, "d")
			if _, _, err := c.Lookup(ctx, meta.RootCred, meta.RootIno, "d"); err != nil {
				t.Fatal(err)
			}
			// The first deletion makes the trash's folders.
			create(t, c, meta.RootIno, "first")
			if _, _, err := c.Unlink(ctx, meta.RootCred, meta.RootIno, "first"); err != nil {
				t.Fatal(err)
			}
			now := d
			if tc.change != nil {
				now = tc.change(t, other, d)
			}
			if tc.racing != nil {
				eng.beforeRename = func() { tc.racing(t, other, d) }
			}
			before := trashEntries(t, eng.Engine)
			reads := eng.reads.Load()
			err := c.Rmdir(ctx, meta.RootCred, meta.RootIno, "d")
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("rmdir: %v, want %v", err, tc.wantErr)
			}
			if tc.change == nil && tc.racing == nil {
				if n := eng.reads.Load() - reads; n != 0 {
					t.Errorf("the rmdir cost %d look-ups and directory reads, want 0", n)
				}
			}
			ino, _, lookupErr := eng.Engine.Lookup(ctx, meta.RootIno, "d")
			switch {
			case now == 0:
				if !errors.Is(lookupErr, meta.ErrNotFound) {
					t.Errorf("after the rmdir of a removed name, d names %d (%v)", ino, lookupErr)
				}
			case tc.wantErr != nil:
				if lookupErr != nil || ino != now {
					t.Errorf("after a failed rmdir, d names %d (%v), want %d", ino, lookupErr, now)
				}
			case !errors.Is(lookupErr, meta.ErrNotFound):
				t.Errorf("after the rmdir, d names %d (%v), want nothing", ino, lookupErr)
			}
			added := trashAdded(t, eng.Engine, before)
			if tc.wantErr != nil {
				if len(added) != 0 {
					t.Errorf("a failed rmdir put %+v into the trash", added)
				}
				return
			}
			want := meta.TrashEntryName(meta.RootIno, now, "d")
			if len(added) != 1 || added[0].Name != want || added[0].Ino != now {
				t.Errorf("the trash gained %+v, want %q for inode %d", added, want, now)
			}
		})
	}
}
