package sql

import (
	"bytes"
	"context"
	dbsql "database/sql"
	"fmt"
	"testing"
	"time"

	"cairn/internal/testenv"
	"cairn/meta"
	"cairn/meta/metatest"
)

// checkFlushMarkAfterCut breaks the connection under the COMMIT of a
// client's flush after the server ran it, once for the directory
// statistics and once for a quota's usage: the flush fails, the client
// sends the same batch again with the same FlushMark, and the engine must
// count it once. Every directory's statistics must then equal a full
// count, and the quota's usage the count of its tree.
func checkFlushMarkAfterCut(t *testing.T, e *Engine, cut *testenv.Cutter) {
	ctx := context.Background()
	if err := e.Init(ctx, testFormat(), false); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Load(ctx); err != nil {
		t.Fatal(err)
	}
	// The quota is set before the client starts: the client reads the
	// quotas once and keeps them for QuotaRefresh, and a quota it did not
	// see would be charged nothing.
	q := engineMkdir(t, e, "q")
	if _, err := meta.RepairDirStats(ctx, e, meta.RootIno); err != nil {
		t.Fatal(err)
	}
	if err := e.SetQuota(ctx, q, meta.Quota{MaxInodes: 1000}); err != nil {
		t.Fatal(err)
	}
	c := meta.NewClient(e, meta.ClientConfig{Heartbeat: time.Hour})
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)

	rounds := 0
	change := func() {
		rounds++
		d := clientMknod(t, c, meta.RootIno, fmt.Sprintf("d%d", rounds), meta.TypeDirectory)
		for i := range 3 {
			clientMknod(t, c, d, fmt.Sprintf("f%d", i), meta.TypeFile)
		}
		f := clientMknod(t, c, q, fmt.Sprintf("g%d", rounds), meta.TypeFile)
		id, err := c.NewSliceID(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.Write(ctx, f, 0, meta.Slice{ID: id, Size: 5000, Len: 5000}, time.Now().UnixNano()); err != nil {
			t.Fatal(err)
		}
	}
	// What the engine sends with COMMIT: AddQuotaUsage's changes name
	// cairn_quota (and cairn_dirstat, for its mark); AddDirStats's only
	// cairn_dirstat.
	has := func(req []byte, words ...string) bool {
		for _, w := range words {
			if !bytes.Contains(req, []byte(w)) {
				return false
			}
		}
		return true
	}
	// Before a batch is sent again, the server must have applied it (else
	// the mark would not be what the test holds to count once).
	cutFlush(t, c, cut, "directory statistics", func(req []byte) bool {
		return has(req, "COMMIT", "cairn_dirstat") && !has(req, "cairn_quota")
	}, change, func() bool { return len(metatest.StatsMiscounted(t, e)) == 0 })
	cutFlush(t, c, cut, "quota usage", func(req []byte) bool { return has(req, "COMMIT", "cairn_quota") }, change,
		func() bool { return len(metatest.QuotaMiscounted(t, e, q)) == 0 })
	if err := c.FlushDirStats(ctx); err != nil {
		t.Fatalf("flush again after the cuts: %v", err)
	}

	for _, wrong := range append(metatest.StatsMiscounted(t, e), metatest.QuotaMiscounted(t, e, q)...) {
		t.Error(wrong)
	}
}

// cutFlush makes changes and flushes them with the cutter armed for the
// request match accepts, until the flush called here is the one cut
// (and fails). The client's own flush, every second, may take the
// changes first; that try does not count and another is made.
func cutFlush(t *testing.T, c *meta.Client, cut *testenv.Cutter, what string, match func([]byte) bool, change func(), applied func() bool) {
	t.Helper()
	for range 5 {
		change()
		cuts := cut.Cuts()
		cut.Arm(true, 0, match)
		err := c.FlushDirStats(context.Background())
		cut.Disarm()
		if err != nil {
			if cut.Cuts() == cuts {
				t.Fatalf("the flush of the %s failed, but no connection was cut: %v", what, err)
			}
			testenv.Eventually(t, "applied: the "+what+" whose answer was lost", applied)
			return
		}
		t.Logf("the background flush wrote the %s first (cuts %d -> %d): trying again", what, cuts, cut.Cuts())
	}
	t.Fatalf("the flush of the %s was never the one cut", what)
}

// engineMkdir makes a directory under the root through the engine alone.
func engineMkdir(t *testing.T, e *Engine, name string) meta.Ino {
	t.Helper()
	ctx := context.Background()
	ino, err := e.NextInodes(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Mknod(ctx, meta.RootCred, meta.RootIno, name, ino, meta.TypeDirectory, 0o755, 0, ""); err != nil {
		t.Fatal(err)
	}
	return ino
}

func clientMknod(t *testing.T, c *meta.Client, parent meta.Ino, name string, typ meta.FileType) meta.Ino {
	t.Helper()
	ino, _, err := c.Mknod(context.Background(), meta.RootCred, parent, name, typ, 0o755, 0, "")
	if err != nil {
		t.Fatalf("create %q in %d: %v", name, parent, err)
	}
	return ino
}

func TestPostgresFlushMarkAfterCut(t *testing.T) {
	e, c := postgresThroughCutter(t, "flushmark")
	checkFlushMarkAfterCut(t, e, c)
}

func TestMariaDBFlushMarkAfterCut(t *testing.T) {
	e, c := mariaDBThroughCutter(t, "flushmark")
	checkFlushMarkAfterCut(t, e, c)
}

// TestFlushMarkRoundTrips counts the round trips (statements, on SQLite)
// of AddDirStats unmarked, then with a flush mark whose record is
// missing, holds a lower Seq, or holds the same (applied before). Where
// INSERT ... ON CONFLICT ... RETURNING exists (PostgreSQL, SQLite) the
// record is created if missing, locked and read by one statement, so a
// marked flush on PostgreSQL is one round trip more than an unmarked one,
// not two; MariaDB sends the record's insert and read together already.
func TestFlushMarkRoundTrips(t *testing.T) {
	ctx := context.Background()
	openPostgres, _ := postgresOpener(t)
	openMariaDB, _ := mariadbOpener(t)
	engines := []struct {
		name string
		open func(t *testing.T) meta.Engine
		want [4]uint64 // unmarked, a new record, a lower Seq, applied before
	}{
		{"sqlite", openSQLiteEngine, [4]uint64{3, 5, 5, 3}},
		{"postgres", openPostgres, [4]uint64{2, 3, 3, 3}},
		{"mariadb", openMariaDB, [4]uint64{1, 2, 2, 2}},
	}
	for _, en := range engines {
		t.Run(en.name, func(t *testing.T) {
			e := en.open(t).(*Engine)
			if err := e.Init(ctx, testFormat(), false); err != nil {
				t.Fatal(err)
			}
			deltas := map[meta.Ino]meta.DirStat{meta.RootIno: {Space: 4096, Inodes: 1}}
			if err := e.AddDirStats(ctx, deltas, nil, meta.FlushMark{}); err != nil {
				t.Fatal(err) // creates the table on a volume that had none
			}
			key := meta.NewFlushMarkKey()
			calls := []struct {
				what string
				mark meta.FlushMark
			}{
				{"unmarked", meta.FlushMark{}},
				{"marked, a new record", meta.FlushMark{Key: key, Seq: 1}},
				{"marked, a lower Seq in the record", meta.FlushMark{Key: key, Seq: 2}},
				{"marked, applied before", meta.FlushMark{Key: key, Seq: 2}},
			}
			for i, c := range calls {
				before := e.Stats().RoundTrips
				if err := e.AddDirStats(ctx, deltas, nil, c.mark); err != nil {
					t.Fatal(err)
				}
				n := e.Stats().RoundTrips - before
				t.Logf("%s: %d round trips", c.what, n)
				if n != en.want[i] {
					t.Errorf("AddDirStats %s: %d round trips, want %d", c.what, n, en.want[i])
				}
			}
		})
	}
}

// TestFlushMarkWaitsForTheOtherCopy: a marked call whose record another
// copy's transaction holds — inserting it, or locked to raise its Seq at
// COMMIT, as claimMark leaves it — waits for that transaction, then sees
// what it committed and changes nothing. An insert that leaves an
// existing record unlocked (ON CONFLICT DO NOTHING) and a read without
// FOR UPDATE would not wait in the second case: they would read the old
// Seq and count the call twice.
func TestFlushMarkWaitsForTheOtherCopy(t *testing.T) {
	ctx := context.Background()
	openPostgres, _ := postgresOpener(t)
	openMariaDB, _ := mariadbOpener(t)
	for _, en := range []struct {
		name string
		open func(t *testing.T) meta.Engine
	}{{"postgres", openPostgres}, {"mariadb", openMariaDB}} {
		t.Run(en.name, func(t *testing.T) {
			e := en.open(t).(*Engine)
			if err := e.Init(ctx, testFormat(), false); err != nil {
				t.Fatal(err)
			}
			if err := e.AddDirStats(ctx, nil, nil, meta.FlushMark{}); err != nil {
				t.Fatal(err) // creates the table on a volume that had none
			}
			key := int64(meta.NewFlushMarkKey())
			firsts := []struct{ what, hold, atCommit string }{
				{"inserts the record", fmt.Sprintf("INSERT INTO cairn_dirstat (ino, space, inodes) VALUES (%d, 0, 1)", key), ""},
				{"locked the record", fmt.Sprintf("SELECT inodes FROM cairn_dirstat WHERE ino = %d FOR UPDATE", key),
					fmt.Sprintf("UPDATE cairn_dirstat SET inodes = 2 WHERE ino = %d", key)},
			}
			exec := func(sc *dbsql.Conn, stmts ...string) {
				t.Helper()
				for _, stmt := range stmts {
					if _, err := sc.ExecContext(ctx, stmt); err != nil {
						t.Fatalf("%s: %v", stmt, err)
					}
				}
			}
			for i, first := range firsts {
				sc, err := e.db.Conn(ctx)
				if err != nil {
					t.Fatal(err)
				}
				exec(sc, "BEGIN", first.hold)
				done := make(chan error, 1)
				go func() {
					mark := meta.FlushMark{Key: meta.Ino(key), Seq: uint64(i + 1)}
					done <- e.AddDirStats(ctx, map[meta.Ino]meta.DirStat{20: {Inodes: 1}}, nil, mark)
				}()
				select {
				case err := <-done:
					t.Fatalf("while another copy's transaction %s, the call returned (%v) instead of waiting", first.what, err)
				case <-time.After(300 * time.Millisecond):
				}
				if first.atCommit != "" {
					exec(sc, first.atCommit)
				}
				exec(sc, "COMMIT")
				sc.Close()
				if err := <-done; err != nil {
					t.Fatalf("after the copy that %s committed: %v", first.what, err)
				}
				all, err := e.AllDirStats(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if got := all[20]; got != (meta.DirStat{}) {
					t.Fatalf("after the copy that %s committed, the call was applied again: directory 20 holds %+v", first.what, got)
				}
			}
		})
	}
}
