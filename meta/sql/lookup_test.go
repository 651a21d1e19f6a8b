package sql

import (
	"context"
	"errors"
	"testing"

	"cairn/meta"
)

// TestLookupOneStatement: every answer of Lookup — found, missing, in a
// missing directory, in a file — is one statement, outside a transaction.
func TestLookupOneStatement(t *testing.T) {
	ctx := context.Background()
	openPostgres, _ := postgresOpener(t)
	engines := []struct {
		name string
		open func(t *testing.T) meta.Engine
	}{
		{"sqlite", openSQLiteEngine},
		{"postgres", openPostgres},
	}
	for _, en := range engines {
		t.Run(en.name, func(t *testing.T) {
			e := en.open(t).(*Engine)
			if err := e.Init(ctx, testFormat(), false); err != nil {
				t.Fatal(err)
			}
			ino, err := e.NextInodes(ctx, 1)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.Mknod(ctx, meta.RootCred, meta.RootIno, "f", ino, meta.TypeFile, 0644, 0, ""); err != nil {
				t.Fatal(err)
			}
			cases := []struct {
				what   string
				parent meta.Ino
				name   string
				want   error
			}{
				{"an entry", meta.RootIno, "f", nil},
				{"a missing name", meta.RootIno, "g", meta.ErrNotFound},
				{"a name in a missing directory", ino + 1000, "f", meta.ErrNotFound},
				{"a name in a file", ino, "f", meta.ErrNotDir},
			}
			for _, c := range cases {
				before := e.Stats().RoundTrips
				got, a, err := e.Lookup(ctx, c.parent, c.name)
				if !errors.Is(err, c.want) || (err != nil) != (c.want != nil) {
					t.Errorf("lookup of %s: %v, want %v", c.what, err, c.want)
				}
				if c.want == nil && (got != ino || a.Type != meta.TypeFile || a.Nlink != 1) {
					t.Errorf("lookup of %s: inode %d %+v, want %d, a file of one link", c.what, got, a, ino)
				}
				if n := e.Stats().RoundTrips - before; n != 1 {
					t.Errorf("lookup of %s: %d statements, want 1", c.what, n)
				}
			}
		})
	}
}
