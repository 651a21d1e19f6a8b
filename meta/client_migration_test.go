package meta_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"cairn/internal/testenv"
	"cairn/meta"
	"cairn/meta/engines"
	"cairn/migrate"
)

// migration is a SQLite SRC with two started Clients (each with its own
// connection, as two mounts have), an empty PostgreSQL DST, and the
// migrator's handles on both: the tests play the migrator with package
// migrate's functions and write the record's phases themselves.
type migration struct {
	t        *testing.T
	src      meta.Engine // the migrator's
	log      meta.ChangeLog
	dst      meta.Engine // the migrator's
	dstURL   string      // with the password
	record   []byte
	clients  []*meta.Client
	position uint64
}

// opener is what a mount gives its Client: it opens a URL of the record
// (without password) with the password it knows.
type opener struct {
	redacted, full string
	refuse         atomic.Bool // fail every open
	opened         atomic.Int64
}

func (o *opener) open(ctx context.Context, url string) (meta.Engine, error) {
	if o.refuse.Load() {
		return nil, errors.New("test: DST unreachable")
	}
	if url != o.redacted {
		return nil, fmt.Errorf("test: unexpected URL %q", url)
	}
	o.opened.Add(1)
	return engines.Open(o.full)
}

// newMigration sets the migration up; wrap, when given, wraps each
// client's SRC engine.
func newMigration(t *testing.T, pg *testenv.PostgresServer, name string, wrap ...func(meta.Engine) meta.Engine) (*migration, *opener) {
	t.Helper()
	ctx := t.Context()
	path := "sqlite3://" + filepath.Join(t.TempDir(), "src.db")
	open := func(url string) meta.Engine {
		e, err := engines.Open(url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	m := &migration{t: t, src: open(path)}
	if err := m.src.Init(ctx, meta.Format{Name: name, UUID: "uuid-" + name, BlockSize: 4 << 20, Version: meta.FormatVersion}, false); err != nil {
		t.Fatal(err)
	}
	m.log, _ = meta.Capability[meta.ChangeLog](m.src)
	pg.SQL(t, "postgres", "CREATE DATABASE "+name)
	m.dstURL = pg.URL(name)
	m.dst = open(m.dstURL)
	o := &opener{redacted: engines.Redact(m.dstURL), full: m.dstURL}
	for i := range 2 {
		e, err := engines.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range wrap {
			e = w(e)
		}
		c := meta.NewClient(e, meta.ClientConfig{Heartbeat: 50 * time.Millisecond, OpenEngine: o.open,
			Session: meta.SessionInfo{Hostname: fmt.Sprint("client", i)}})
		if err := c.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			c.Close(context.Background())
			c.Engine().Close() // the engine it ended on
		})
		m.clients = append(m.clients, c)
	}
	return m, o
}

// setPhase writes the record in phase, with a deadline after d.
func (m *migration) setPhase(phase string, d time.Duration) {
	m.t.Helper()
	next := meta.EncodeMigration(meta.MigrationRecord{ID: "test", Destination: engines.Redact(m.dstURL), Phase: phase, Deadline: time.Now().Add(d)})
	if err := m.log.SwapMigration(m.t.Context(), m.record, next); err != nil {
		m.t.Fatal(err)
	}
	m.record = next
}

// finish is the migrator's switch: migrate.Finish, which writes the
// record in phase MigrationSwitched.
func (m *migration) finish() {
	m.t.Helper()
	_, err := migrate.Finish(m.t.Context(), m.src, m.dst, m.log, m.position, func(context.Context) error {
		m.setPhase(meta.MigrationSwitched, time.Hour)
		return nil
	})
	if err != nil {
		m.t.Fatal(err)
	}
}

// receive waits for the error of a call, failing after a minute.
func receive(t *testing.T, ch chan error) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(time.Minute):
		t.Fatal("after a minute, the call still has not returned")
		return nil
	}
}

// acked reports whether every client appended acknowledgement ack.
func (m *migration) acked(ack uint64) bool {
	changes, err := m.log.Changes(m.t.Context(), 0, 100000)
	if err != nil {
		m.t.Fatal(err)
	}
	for _, c := range m.clients {
		if !slices.ContainsFunc(changes, func(ch meta.Change) bool {
			return ch.Kind == meta.ChangeAck && ch.Session == c.Session() && ch.Operation == ack
		}) {
			return false
		}
	}
	return true
}

// waitAcked waits until every client appended acknowledgement ack.
func (m *migration) waitAcked(ack uint64) {
	m.t.Helper()
	testenv.Eventually(m.t, fmt.Sprintf("acknowledged %d by both clients", ack), func() bool { return m.acked(ack) })
}

// copyAndPause runs the migration up to the switch: tracking, both
// acknowledgements, the bulk copy, a round, the pause and both
// acknowledgements of it. between runs after the bulk copy, while the
// clients are tracked.
func (m *migration) copyAndPause(between func()) {
	m.t.Helper()
	ctx := m.t.Context()
	m.setPhase(meta.MigrationTracking, time.Hour)
	m.waitAcked(meta.MigrationAckTracking)
	var err error
	if m.position, err = m.log.ChangesEnd(ctx); err != nil {
		m.t.Fatal(err)
	}
	if err := migrate.BulkCopy(ctx, m.src, m.dst, nil); err != nil {
		m.t.Fatal(err)
	}
	between()
	if m.position, _, err = migrate.CatchUpRound(ctx, m.src, m.dst, m.log, m.position); err != nil {
		m.t.Fatal(err)
	}
	m.setPhase(meta.MigrationPausing, time.Hour)
	m.waitAcked(meta.MigrationAckPaused)
}

func mkfile(t *testing.T, c *meta.Client, name string) meta.Ino {
	t.Helper()
	ino, _, err := c.Mknod(t.Context(), meta.RootCred, meta.RootIno, name, meta.TypeFile, 0644, 0, "")
	if err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	return ino
}

// names lists e's root.
func names(t *testing.T, e meta.Engine) []string {
	t.Helper()
	var out []string
	for _, ent := range must(e.Readdir(t.Context(), meta.RootIno, "", 1<<20, false))(t) {
		out = append(out, ent.Name)
	}
	return out
}

// TestClientFollowsMigration: two Clients on SQLite follow a migration
// to PostgreSQL that the test drives with package migrate.
func TestClientFollowsMigration(t *testing.T) {
	pg := testenv.Postgres(t)

	t.Run("Switch", func(t *testing.T) {
		ctx := t.Context()
		m, o := newMigration(t, pg, "follow_switch")
		one, two := m.clients[0], m.clients[1]
		var orphan, locked meta.Ino
		var slice meta.Slice
		m.copyAndPause(func() {
			mkfile(t, one, "during-copy")
			// A file written and unlinked while open on one.
			orphan = mkfile(t, one, "orphan")
			one.Opened(orphan)
			slice = meta.Slice{ID: must(one.NewSliceID(ctx))(t), Size: 100, Len: 100}
			must3(one.Write(ctx, orphan, 0, slice, time.Now().UnixNano()))(t)
			must3(one.Unlink(ctx, meta.RootCred, meta.RootIno, "orphan"))(t)
			// A flock two holds.
			locked = mkfile(t, two, "locked")
			if err := two.Flock(ctx, locked, 7, meta.LockWrite); err != nil {
				t.Fatal(err)
			}
		})
		// Paused: a mutation waits, a read does not.
		blocked := make(chan error, 1)
		go func() {
			_, _, err := one.Mknod(ctx, meta.RootCred, meta.RootIno, "while-paused", meta.TypeFile, 0644, 0, "")
			blocked <- err
		}()
		if _, _, err := two.Lookup(ctx, meta.RootCred, meta.RootIno, "during-copy"); err != nil {
			t.Errorf("a look-up while paused: %v", err)
		}
		m.finish()
		select {
		case err := <-blocked:
			t.Fatalf("a mutation returned (%v) while the clients were paused", err)
		default:
		}
		atSwitch := names(t, m.src)
		if slices.Contains(atSwitch, "while-paused") {
			t.Fatal("a mutation reached SRC while the clients were paused")
		}
		testenv.Eventually(t, "switched", func() bool {
			return m.acked(meta.MigrationAckSwitched) && one.Session() != two.Session() && o.opened.Load() == 2
		})
		if err := receive(t, blocked); err != nil {
			t.Fatalf("the mutation held by the pause: %v", err)
		}
		// Both write to DST and see each other's changes.
		mkfile(t, one, "after-one")
		mkfile(t, two, "after-two")
		for _, c := range m.clients {
			for _, name := range []string{"while-paused", "after-one", "after-two", "during-copy"} {
				if _, _, err := c.Lookup(ctx, meta.RootCred, meta.RootIno, name); err != nil {
					t.Errorf("look-up of %s after the switch: %v", name, err)
				}
			}
		}
		if got := names(t, m.src); !slices.Equal(got, atSwitch) {
			t.Errorf("SRC changed after the switch: %v, then %v", atSwitch, got)
		}
		if got := names(t, m.dst); !slices.Contains(got, "after-two") || !slices.Contains(got, "while-paused") {
			t.Errorf("DST's root after the switch: %v", got)
		}
		// The file unlinked while open still reads, and goes at its close.
		if list, err := one.Read(ctx, orphan, 0); err != nil || len(list) != 1 || list[0].ID != slice.ID {
			t.Errorf("read the file unlinked while open after the switch: %v, %v; want slice %d", list, err, slice.ID)
		}
		if released, err := one.Closed(ctx, orphan); !released || err != nil {
			t.Errorf("last close of the file unlinked while open: released %v, %v", released, err)
		}
		if _, err := m.dst.GetAttr(ctx, orphan); !errors.Is(err, meta.ErrNotFound) {
			t.Errorf("the file unlinked while open is still on DST after its last close: %v", err)
		}
		// The flock two holds still keeps one out.
		if err := one.Flock(ctx, locked, 9, meta.LockWrite); !errors.Is(err, meta.ErrAgain) {
			t.Errorf("flock against the one two holds, after the switch: %v, want EAGAIN", err)
		}
		if err := two.Flock(ctx, locked, 7, meta.LockUnlock); err != nil {
			t.Fatal(err)
		}
		if err := one.Flock(ctx, locked, 9, meta.LockWrite); err != nil {
			t.Errorf("flock once two dropped its own: %v", err)
		}
	})

	t.Run("DeadlinePassed", func(t *testing.T) {
		ctx := t.Context()
		m, o := newMigration(t, pg, "follow_deadline")
		m.copyAndPause(func() {})
		blocked := make(chan error, 1)
		go func() {
			_, _, err := m.clients[0].Mknod(ctx, meta.RootCred, meta.RootIno, "held", meta.TypeFile, 0644, 0, "")
			blocked <- err
		}()
		m.setPhase(meta.MigrationPausing, -time.Second) // the migrator stopped
		if err := receive(t, blocked); err != nil {
			t.Fatalf("the mutation held by the pause, once the deadline passed: %v", err)
		}
		testenv.Eventually(t, "the record dropped", func() bool { return must(m.log.Migration(ctx))(t) == nil })
		mkfile(t, m.clients[0], "after-one")
		mkfile(t, m.clients[1], "after-two")
		if got := names(t, m.src); !slices.Contains(got, "held") || !slices.Contains(got, "after-one") || !slices.Contains(got, "after-two") {
			t.Errorf("SRC's root after the migration was dropped: %v", got)
		}
		if o.opened.Load() != 0 {
			t.Errorf("DST opened %d times", o.opened.Load())
		}
	})

	t.Run("DestinationUnreachable", func(t *testing.T) {
		ctx := t.Context()
		m, o := newMigration(t, pg, "follow_unreachable")
		o.refuse.Store(true)
		m.copyAndPause(func() {})
		m.finish()
		atSwitch := names(t, m.src)
		// The deadline passes with DST out of reach: mutations fail with
		// EIO, reads go on, SRC is never written.
		m.setPhase(meta.MigrationSwitched, -time.Second)
		refused := make(chan error, 1)
		go func() {
			_, _, err := m.clients[0].Mknod(ctx, meta.RootCred, meta.RootIno, "refused", meta.TypeFile, 0644, 0, "")
			refused <- err
		}()
		if err := receive(t, refused); !errors.Is(err, syscall.EIO) {
			t.Fatalf("a mutation while DST is out of reach, past the deadline: %v, want EIO", err)
		}
		if _, err := m.clients[1].GetAttr(ctx, meta.RootIno); err != nil {
			t.Errorf("a read while DST is out of reach: %v", err)
		}
		if got := names(t, m.src); !slices.Equal(got, atSwitch) {
			t.Errorf("SRC written after the switch: %v, then %v", atSwitch, got)
		}
		// DST comes back: the clients follow.
		o.refuse.Store(false)
		for i, c := range m.clients {
			testenv.Eventually(t, "a mutation on DST", func() bool {
				_, _, err := c.Mknod(ctx, meta.RootCred, meta.RootIno, fmt.Sprint("later-", i), meta.TypeFile, 0644, 0, "")
				return err == nil
			})
		}
		if got := names(t, m.dst); !slices.Contains(got, "later-0") || !slices.Contains(got, "later-1") {
			t.Errorf("DST's root once reachable: %v", got)
		}
		if got := names(t, m.src); !slices.Equal(got, atSwitch) {
			t.Errorf("SRC written after the switch: %v, then %v", atSwitch, got)
		}
	})
}

// failingLog is an engine whose change log refuses pre-marks once fail
// is set.
type failingLog struct {
	meta.Engine
	meta.ChangeLog
	fail atomic.Bool
}

func (f *failingLog) Unwrap() meta.Engine { return f.Engine }

func (f *failingLog) AppendChanges(ctx context.Context, changes []meta.Change) (uint64, error) {
	if f.fail.Load() && changes[0].Kind == meta.ChangeBefore {
		return 0, errors.New("test: the change log is out of reach")
	}
	return f.ChangeLog.AppendChanges(ctx, changes)
}

// TestClientPreMarkFails: a Client's mutation whose pre-mark cannot be
// appended fails with EIO, the errno an application sees, and does not
// run.
func TestClientPreMarkFails(t *testing.T) {
	ctx := t.Context()
	e := trackerVolume(t, "src")
	l, _ := meta.Capability[meta.ChangeLog](e)
	f := &failingLog{Engine: e, ChangeLog: l}
	c := meta.NewClient(f, meta.ClientConfig{Heartbeat: 50 * time.Millisecond, OpenEngine: func(context.Context, string) (meta.Engine, error) {
		return nil, errors.New("test: no DST")
	}})
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	record := meta.EncodeMigration(meta.MigrationRecord{ID: "test", Destination: "none", Phase: meta.MigrationTracking, Deadline: time.Now().Add(time.Hour)})
	if err := l.SwapMigration(ctx, nil, record); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "tracking", func() bool {
		changes := must(l.Changes(ctx, 0, 100))(t)
		return len(changes) > 0 && changes[0].Kind == meta.ChangeAck
	})
	f.fail.Store(true)
	_, _, err := c.Mknod(ctx, meta.RootCred, meta.RootIno, "f", meta.TypeFile, 0644, 0, "")
	var errno meta.Errno
	if !errors.As(err, &errno) || errno != meta.Errno(syscall.EIO) {
		t.Fatalf("a mutation whose pre-mark failed: %v, want EIO first in its chain", err)
	}
	if !strings.Contains(err.Error(), "out of reach") {
		t.Errorf("the error %q does not say why", err)
	}
	if _, _, err := e.Lookup(ctx, meta.RootIno, "f"); !errors.Is(err, meta.ErrNotFound) {
		t.Errorf("the refused mutation ran: Lookup = %v", err)
	}
}

// must3 is must for calls with two results and an error.
func must3[A, B any](a A, b B, err error) func(t *testing.T) A {
	return must(a, err)
}
