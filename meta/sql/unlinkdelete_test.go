package sql

import (
	"context"
	"testing"

	"cairn/meta"
)

// TestUnlinkDeleteStatements counts the statements of UnlinkDelete on
// SQLite, which runs it without routines: an inode whose last link goes
// is deleted in the unlink's transaction without first being written as
// the session's orphan and read back (its link count, the orphan row,
// the orphan row's read and delete, the inode's second read: 18
// statements for an empty file before). A link that is not the last, or
// an inode other than the one expected, still becomes an orphan or keeps
// its links, as Unlink leaves it.
func TestUnlinkDeleteStatements(t *testing.T) {
	ctx := context.Background()
	e := openSQLite(t)
	if err := e.Init(ctx, testFormat(), false); err != nil {
		t.Fatal(err)
	}
	const sid = 7
	mk := func(name string) meta.Ino {
		ino, err := e.NextInodes(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Mknod(ctx, meta.RootCred, meta.RootIno, name, ino, meta.TypeFile, 0o644, 0, ""); err != nil {
			t.Fatal(err)
		}
		return ino
	}
	cases := []struct {
		name    string
		expect  func(ino meta.Ino) meta.Ino
		deleted bool
		want    uint64 // statements, BEGIN and COMMIT included
	}{
		{"last link, expected", func(ino meta.Ino) meta.Ino { return ino }, true, 13},
		{"last link, another inode expected", func(ino meta.Ino) meta.Ino { return ino + 1000 }, false, 9},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ino := mk(c.name)
			before := e.Stats().RoundTrips
			got, a, deleted, err := e.UnlinkDelete(ctx, meta.RootCred, meta.RootIno, c.name, sid, c.expect(ino))
			if err != nil {
				t.Fatal(err)
			}
			n := e.Stats().RoundTrips - before
			t.Logf("%d statements", n)
			if got != ino || a.Nlink != 0 || deleted != c.deleted {
				t.Errorf("UnlinkDelete: inode %d nlink %d deleted %v, want %d, 0, %v", got, a.Nlink, deleted, ino, c.deleted)
			}
			if n != c.want {
				t.Errorf("UnlinkDelete: %d statements, want %d", n, c.want)
			}
			var orphans int
			if err := e.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM cairn_orphan WHERE ino = ? AND sid = ?", int64(ino), sid).Scan(&orphans); err != nil {
				t.Fatal(err)
			}
			held := orphans == 1
			if held == deleted {
				t.Errorf("after UnlinkDelete (deleted %v), session %d holds inode %d as an orphan: %v", deleted, sid, ino, held)
			}
		})
	}
}
