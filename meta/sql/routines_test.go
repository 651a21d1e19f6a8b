package sql

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"cairn/internal/testenv"
	"cairn/meta"
)

// checkRoutineRules runs the permission rules ported into the database's
// routines (cairn_access, cairn_may_delete, and InitAttr inside
// cairn_create) and meta/perm.go on the same table of cases, through the
// real server, and wants the same answers, so that the port cannot drift
// from the reference.
func checkRoutineRules(t *testing.T, e *Engine) {
	ctx := context.Background()
	if err := e.Init(ctx, testFormat(), false); err != nil {
		t.Fatal(err)
	}
	errno := func(err error) int64 {
		var n syscall.Errno
		if err == nil {
			return 0
		}
		if errors.As(err, &n) {
			return int64(n)
		}
		t.Fatalf("not an errno: %v", err)
		return 0
	}
	creds := []meta.Cred{
		{}, {Uid: 1000, Gid: 1000}, {Uid: 1000, Gid: 50, Gids: []uint32{1000, 7}},
		{Uid: 1001, Gid: 1001}, {Uid: 1001, Gid: 2000, Gids: []uint32{1000}}, {Uid: 65534, Gid: 65534},
	}
	owners := [][2]uint32{{1000, 1000}, {0, 0}, {1001, 2000}}
	var attrs []meta.Attr
	for _, typ := range []meta.FileType{meta.TypeFile, meta.TypeDirectory} {
		for _, mode := range []uint16{0, 0001, 0010, 0604, 0111, 0644, 0700, 0755, 0770, 0707, 01777, 02775, 02010, 06755, 04711, 02070} {
			for _, owner := range owners {
				attrs = append(attrs, meta.Attr{Type: typ, Mode: mode, Uid: owner[0], Gid: owner[1]})
			}
		}
	}
	c := &conn{ctx: ctx, e: e, q: e.db}
	cases := 0
	for _, cred := range creds {
		for i := range attrs {
			a := attrs[i]
			for mask := uint32(0); mask <= 7; mask++ {
				var got int64
				if err := c.queryRow("SELECT cairn_access(?, ?, ?, ?, ?, ?, ?)", int64(a.Type), int64(a.Mode), int64(a.Uid),
					int64(a.Gid), int64(cred.Uid), groupsArg(cred), int64(mask)).Scan(&got); err != nil {
					t.Fatal(err)
				}
				if want := errno(meta.Access(&a, cred, mask)); got != want {
					t.Errorf("Access(%+v, %+v, %d): routine %d, Go %d", a, cred, mask, got, want)
				}
				cases++
			}
			victim := attrs[(i*7)%len(attrs)]
			var got int64
			if err := c.queryRow("SELECT cairn_may_delete(?, ?, ?, ?, ?, ?)", int64(a.Mode), int64(a.Uid), int64(a.Gid),
				int64(victim.Uid), int64(cred.Uid), groupsArg(cred)).Scan(&got); err != nil {
				t.Fatal(err)
			}
			dir := a
			dir.Type = meta.TypeDirectory
			if want := errno(meta.MayDelete(&dir, &victim, cred)); got != want {
				t.Errorf("MayDelete(%+v, %+v, %+v): routine %d, Go %d", dir, victim, cred, got, want)
			}
			cases++
		}
	}

	// InitAttr and the create checks, through cairn_create itself: one
	// parent directory per mode and owner, children of every type made by
	// every caller.
	next := meta.Ino(1000)
	for _, mode := range []uint16{0777, 02777, 02770, 0755, 01777, 02010} {
		for _, owner := range owners {
			next++
			dirIno := next
			pname := fmt.Sprintf("p%o-%d", mode, owner[0])
			if _, err := e.Mknod(ctx, meta.RootCred, meta.RootIno, pname, dirIno, meta.TypeDirectory, 0777, 0, ""); err != nil {
				t.Fatal(err)
			}
			m, u, g := mode, owner[0], owner[1]
			p, err := e.SetAttr(ctx, meta.RootCred, dirIno, meta.SetAttr{Mode: &m, Uid: &u, Gid: &g})
			if err != nil {
				t.Fatal(err)
			}
			for ci, cred := range creds {
				for _, typ := range []meta.FileType{meta.TypeFile, meta.TypeDirectory, meta.TypeSymlink} {
					for _, cmode := range []uint16{0644, 02755, 02710, 06777} {
						next++
						name := fmt.Sprintf("c%d-%d-%o", ci, typ, cmode)
						target := ""
						if typ == meta.TypeSymlink {
							target = "t"
						}
						got, gotErr := e.Mknod(ctx, cred, dirIno, name, next, typ, cmode, 0, target)
						wantErr := meta.Access(&p, cred, meta.MayWrite|meta.MayExec)
						if errno(gotErr) != errno(wantErr) {
							t.Fatalf("create %s in %s (%+v) as %+v: routine %v, Go %v", name, pname, p, cred, gotErr, wantErr)
						}
						cases++
						if gotErr != nil {
							continue
						}
						want := meta.InitAttr(&p, cred, typ, cmode, 0, got.Ctime)
						switch typ {
						case meta.TypeDirectory:
							want.Parent = dirIno
						case meta.TypeSymlink:
							want.Length = uint64(len(target))
						}
						if got != want {
							t.Errorf("create %s in %s (%+v) as %+v: routine %+v, Go %+v", name, pname, p, cred, got, want)
						}
					}
				}
			}
		}
	}
	cases += checkSetidRules(t, c, creds)
	cases += checkSetAttrRule(t, e, creds)
	t.Logf("%d cases agree", cases)
}

// checkSetidRules compares cairn_mode_after_write and
// cairn_mode_after_chown with meta.ModeAfterWrite and meta.ModeAfterChown.
func checkSetidRules(t *testing.T, c *conn, creds []meta.Cred) (cases int) {
	rules := []struct {
		routine string
		rule    func(*meta.Attr, meta.Cred) uint16
	}{{"cairn_mode_after_write", meta.ModeAfterWrite}, {"cairn_mode_after_chown", meta.ModeAfterChown}}
	for _, typ := range []meta.FileType{meta.TypeFile, meta.TypeDirectory, meta.TypeFIFO, meta.TypeSymlink} {
		for _, mode := range []uint16{0, 0777, 04777, 02777, 06777, 02767, 06767, 02010, 04000, 01777, 07777} {
			for _, gid := range []uint32{0, 1000, 2000, 7} {
				a := meta.Attr{Type: typ, Mode: mode, Uid: 1000, Gid: gid}
				for _, cred := range creds {
					for _, r := range rules {
						var got int64
						if err := c.queryRow("SELECT "+r.routine+"(?, ?, ?, ?, ?)", int64(a.Type), int64(a.Mode), int64(a.Gid),
							int64(cred.Uid), groupsArg(cred)).Scan(&got); err != nil {
							t.Fatal(err)
						}
						if want := r.rule(&a, cred); got != int64(want) {
							t.Errorf("%s(%+v, %+v): routine %o, Go %o", r.routine, a, cred, got, want)
						}
						cases++
					}
				}
			}
		}
	}
	return cases
}

// checkSetAttrRule compares SetAttr through cairn_setattr with
// meta.ApplySetAttr: one file and one directory, reset by root to each
// starting mode and owner, then changed by every caller in every way.
func checkSetAttrRule(t *testing.T, e *Engine, creds []meta.Cred) (cases int) {
	ctx := context.Background()
	m := func(v uint16) *uint16 { return &v }
	u := func(v uint32) *uint32 { return &v }
	ts := func(v int64) *int64 { return &v }
	sets := []meta.SetAttr{
		{}, {Mode: m(0600)}, {Mode: m(02755)}, {Mode: m(06777)}, {Mode: m(01777)},
		{Uid: u(1000)}, {Uid: u(1001)}, {Gid: u(1000)}, {Gid: u(7)}, {Gid: u(2000)}, {Uid: u(0), Gid: u(0)},
		{Mode: m(02775), Gid: u(7)}, {Mode: m(02775), Gid: u(2000)},
		{Atime: ts(1234567890123456789)}, {Mtime: ts(-5)}, {AtimeNow: true}, {MtimeNow: true},
		{AtimeNow: true, MtimeNow: true}, {Atime: ts(1), MtimeNow: true},
		{ClearSetid: true}, {ClearSetid: true, Mode: m(06777)}, {ClearSetid: true, Gid: u(1000)},
	}
	for i, typ := range []meta.FileType{meta.TypeFile, meta.TypeDirectory} {
		ino := meta.Ino(900 + i)
		if _, err := e.Mknod(ctx, meta.RootCred, meta.RootIno, fmt.Sprintf("setattr%d", i), ino, typ, 0644, 0, ""); err != nil {
			t.Fatal(err)
		}
		for _, mode := range []uint16{0644, 0666, 02775, 06755, 02070, 0, 02767, 06767} {
			for _, owner := range [][2]uint32{{1000, 1000}, {0, 0}, {1001, 2000}} {
				for _, cred := range creds {
					for _, set := range sets {
						base, err := e.SetAttr(ctx, meta.RootCred, ino, meta.SetAttr{Mode: &mode, Uid: &owner[0], Gid: &owner[1],
							Atime: ts(11), Mtime: ts(22)})
						if err != nil {
							t.Fatal(err)
						}
						got, gotErr := e.SetAttr(ctx, cred, ino, set)
						want := base
						now := got.Ctime
						if gotErr != nil {
							now = base.Ctime + 1
						}
						wantErr := meta.ApplySetAttr(&want, cred, set, now)
						cases++
						if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && !errors.Is(gotErr, wantErr)) {
							t.Errorf("SetAttr(%+v) of %+v as %+v: routine %v, Go %v", set, base, cred, gotErr, wantErr)
						} else if gotErr == nil && got != want {
							t.Errorf("SetAttr(%+v) of %+v as %+v: routine %+v, Go %+v", set, base, cred, got, want)
						}
					}
				}
			}
		}
	}
	return cases
}

func TestPostgresRoutinesMatchGo(t *testing.T) {
	p := startPostgres(t)
	checkRoutineRules(t, p.engine(t))
	checkLockRoutine(t, p.engine(t))
	checkSliceRoutines(t, p.engine(t))
}

func TestMariaDBRoutinesMatchGo(t *testing.T) {
	m := &mariaEnv{srv: testenv.MariaDB(t)}
	checkRoutineRules(t, m.engine(t))
	checkLockRoutine(t, m.engine(t))
	checkSliceRoutines(t, m.engine(t))
	// MariaDB materializes a cursor over a BLOB column in an on-disk Aria
	// table, a file made and deleted per call; the routines walk keys
	// instead and need none.
	if got := m.srv.SQL(t, "SHOW GLOBAL STATUS LIKE 'Created_tmp_disk_tables'"); strings.Fields(got)[1] != "0" {
		t.Errorf("the routines made on-disk temporary tables: %s", got)
	}
}

// checkRoutineUpgrade opens a volume as a later release would find one
// formatted by an earlier release without the routines: Load installs
// them, and the operations are one round trip again. Where a routine is
// missing all the same (a user without the right to create routines),
// the operation runs as a general transaction with the same result.
func checkRoutineUpgrade(t *testing.T, e *Engine, dropRoutine string) {
	ctx := context.Background()
	if err := e.Init(ctx, testFormat(), false); err != nil {
		t.Fatal(err)
	}
	c := &conn{ctx: ctx, e: e, q: e.db}
	for _, q := range []string{dropRoutine, "DELETE FROM cairn_setting WHERE name = 'routines'"} {
		if _, err := c.exec(q); err != nil {
			t.Fatal(err)
		}
	}
	mkdir := func(e *Engine, name string) (rtts uint64) {
		t.Helper()
		ino, err := e.NextInodes(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		before := e.Stats().RoundTrips
		if _, err := e.Mknod(ctx, meta.RootCred, meta.RootIno, name, ino, meta.TypeDirectory, 0755, 0, ""); err != nil {
			t.Fatalf("mkdir %s: %v", name, err)
		}
		return e.Stats().RoundTrips - before
	}
	// Before any Load: the routine is missing, the general path serves.
	if n := mkdir(e, "before"); n < 2 {
		t.Errorf("mkdir without its routine took %d round trips: it cannot have run the general transaction", n)
	}
	upgraded := reopen(t, e).(*Engine)
	if _, err := upgraded.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if n := mkdir(upgraded, "after"); n != 1 {
		t.Errorf("mkdir after Load installed the routines took %d round trips, want 1", n)
	}
	var v []byte
	if err := c.queryRow("SELECT value FROM cairn_setting WHERE name = 'routines'").Scan(&v); err != nil || string(v) != fmt.Sprint(routinesVersion) {
		t.Errorf("routines version recorded after the upgrade: %q, %v", v, err)
	}
	ents, err := upgraded.Readdir(ctx, meta.RootIno, "", 10, false)
	if err != nil || len(ents) != 2 {
		t.Fatalf("readdir after the upgrade: %v, %v", ents, err)
	}
}

func TestPostgresRoutineUpgrade(t *testing.T) {
	checkRoutineUpgrade(t, startPostgres(t).engine(t), "DROP FUNCTION cairn_create")
}

func TestMariaDBRoutineUpgrade(t *testing.T) {
	m := &mariaEnv{srv: testenv.MariaDB(t)}
	checkRoutineUpgrade(t, m.engine(t), "DROP PROCEDURE cairn_create")
}

// checkRoutineSlices deletes and truncates files through the routines,
// which decode slice records inside the database, and wants every freed
// slice in DeadSlices with the id and size it was written with (the size
// tells the collector how many blocks to delete), and the cut chunk to end
// in a hole.
func checkRoutineSlices(t *testing.T, e *Engine) {
	ctx := context.Background()
	if err := e.Init(ctx, testFormat(), false); err != nil {
		t.Fatal(err)
	}
	ids, err := e.NextSlices(ctx, 4)
	if err != nil {
		t.Fatal(err)
	}
	// Sizes with every byte set, so that a byte read from the wrong
	// place of the record shows.
	slices := []meta.Slice{
		{ID: ids + 0x100, Size: 0x01020304, Len: 4096},
		{ID: ids + 0x10000, Size: 0x00fedcba, Pos: 4096, Len: 4096},
		{ID: ids + 0x1000000, Size: 0x03000001, Len: 100},
	}
	f, g := meta.Ino(500), meta.Ino(501)
	for _, ino := range []meta.Ino{f, g} {
		if _, err := e.Mknod(ctx, meta.RootCred, meta.RootIno, fmt.Sprint(ino), ino, meta.TypeFile, 0644, 0, ""); err != nil {
			t.Fatal(err)
		}
	}
	for i, s := range slices[:2] {
		if _, _, err := e.Write(ctx, f, uint32(i), s, 1); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := e.Write(ctx, g, 0, slices[2], 1); err != nil {
		t.Fatal(err)
	}
	// Truncating f into its first chunk frees the second chunk's slice
	// and hides the rest of the first.
	a, err := e.Truncate(ctx, meta.RootCred, f, 1000)
	if err != nil || a.Length != 1000 {
		t.Fatalf("Truncate: %+v, %v", a, err)
	}
	list, err := e.Read(ctx, f, 0)
	if err != nil {
		t.Fatal(err)
	}
	hole := meta.Slice{Pos: 1000, Size: meta.ChunkSize - 1000, Len: meta.ChunkSize - 1000}
	if len(list) != 2 || list[0] != slices[0] || list[1] != hole {
		t.Errorf("chunk 0 after Truncate to 1000: %+v, want the slice and then %+v", list, hole)
	}
	// A hole punched across a chunk boundary ends both chunks' lists.
	h := meta.Ino(502)
	if _, err := e.Mknod(ctx, meta.RootCred, meta.RootIno, "h", h, meta.TypeFile, 0644, 0, ""); err != nil {
		t.Fatal(err)
	}
	hid, err := e.NextSlices(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	for idx := uint32(0); idx < 2; idx++ {
		if _, _, err := e.Write(ctx, h, idx, meta.Slice{ID: hid + uint64(idx), Size: 4096, Len: 4096}, 1); err != nil {
			t.Fatal(err)
		}
	}
	if a, err := e.Fallocate(ctx, meta.RootCred, h, meta.FallocPunchHole|meta.FallocKeepSize, 100, meta.ChunkSize-50); err != nil ||
		a.Length != meta.ChunkSize+4096 {
		t.Fatalf("punch hole: %+v, %v", a, err)
	}
	for idx, want := range []meta.Slice{
		{Pos: 100, Size: meta.ChunkSize - 100, Len: meta.ChunkSize - 100},
		{Pos: 0, Size: 50, Len: 50},
	} {
		list, err := e.Read(ctx, h, uint32(idx))
		if err != nil || len(list) != 2 || list[1] != want {
			t.Errorf("chunk %d after the punch: %+v, %v; want the slice and then %+v", idx, list, err, want)
		}
	}
	// Deleting g frees its slice.
	if _, _, err := e.Unlink(ctx, meta.RootCred, meta.RootIno, fmt.Sprint(g), 1); err != nil {
		t.Fatal(err)
	}
	if err := e.ReleaseOrphan(ctx, 1, g); err != nil {
		t.Fatal(err)
	}
	dead, err := e.DeadSlices(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := map[uint64]uint32{slices[1].ID: slices[1].Size, slices[2].ID: slices[2].Size}
	got := map[uint64]uint32{}
	for _, d := range dead {
		got[d.ID] = d.Size
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("DeadSlices = %v, want %v", got, want)
	}
	if _, err := e.GetAttr(ctx, g); !errors.Is(err, meta.ErrNotFound) {
		t.Errorf("GetAttr of the released file: %v, want ENOENT", err)
	}
	if u, err := e.Usage(ctx); err != nil || u.Inodes != 3 || u.Space != 4096+meta.ChunkSize+4096 {
		t.Errorf("Usage after the truncate and the delete: %+v, %v; want 3 inodes, %d bytes", u, err, 4096+meta.ChunkSize+4096)
	}
}

func TestPostgresRoutineSlices(t *testing.T) {
	checkRoutineSlices(t, startPostgres(t).engine(t))
}

func TestMariaDBRoutineSlices(t *testing.T) {
	m := &mariaEnv{srv: testenv.MariaDB(t)}
	checkRoutineSlices(t, m.engine(t))
}

func TestSQLiteRoutineSlices(t *testing.T) {
	// The general transactions, as the reference for the same checks.
	checkRoutineSlices(t, openSQLite(t))
}

// checkSetLkOutdated changes an owner's byte-range locks behind the back
// of the engine that keeps a copy of them (as a session cleanup by another
// client does): the next SetLk must find its copy outdated, read the
// stored ranges and apply the lock to those.
func checkSetLkOutdated(t *testing.T, e1 *Engine) {
	ctx := context.Background()
	if err := e1.Init(ctx, testFormat(), false); err != nil {
		t.Fatal(err)
	}
	e2 := reopen(t, e1).(*Engine)
	f := meta.Ino(600)
	if _, err := e1.Mknod(ctx, meta.RootCred, meta.RootIno, "f", f, meta.TypeFile, 0644, 0, ""); err != nil {
		t.Fatal(err)
	}
	alice := meta.LockOwner{Session: 1, Owner: 1}
	bob := meta.LockOwner{Session: 2, Owner: 1}
	lock := func(e *Engine, o meta.LockOwner, typ uint32, start, end uint64) error {
		return e.SetLk(ctx, f, o, meta.Lock{Type: typ, Start: start, End: end, Pid: 7})
	}
	must := func(err error, what string) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	must(lock(e1, alice, meta.LockWrite, 0, 99), "alice locks [0,99] through e1")
	// Another client drops alice's locks (her session was cleaned up).
	c := &conn{ctx: ctx, e: e2, q: e2.db}
	if _, err := c.exec("DELETE FROM cairn_plock WHERE ino = ?", int64(f)); err != nil {
		t.Fatal(err)
	}
	// And alice takes [200,299] through e2, which e1 does not know.
	must(lock(e2, alice, meta.LockWrite, 200, 299), "alice locks [200,299] through e2")
	before := e1.Stats().RoundTrips
	must(lock(e1, alice, meta.LockUnlock, 0, 49), "alice unlocks [0,49] through e1")
	if n := e1.Stats().RoundTrips - before; n < 3 {
		t.Errorf("SetLk with an outdated copy took %d round trips: it cannot have read the stored ranges", n)
	}
	// [0,99] is gone, [200,299] is still hers.
	must(lock(e1, bob, meta.LockWrite, 0, 99), "bob locks [0,99] once alice's lock there is gone")
	if err := lock(e1, bob, meta.LockWrite, 250, 250); !errors.Is(err, meta.ErrAgain) {
		t.Errorf("bob locks [250,250] inside alice's [200,299]: %v, want EAGAIN", err)
	}
	got, err := e2.GetLk(ctx, f, bob, meta.Lock{Type: meta.LockWrite, Start: 0, End: 1 << 62})
	if err != nil || got.Start != 200 || got.End != 299 {
		t.Errorf("GetLk sees %+v, %v; want alice's [200,299]", got, err)
	}
	// With a copy that is right, one round trip.
	before = e1.Stats().RoundTrips
	must(lock(e1, bob, meta.LockUnlock, 0, 99), "bob unlocks")
	if n := e1.Stats().RoundTrips - before; n != 1 {
		t.Errorf("SetLk with a current copy took %d round trips, want 1", n)
	}
}

func TestPostgresSetLkOutdated(t *testing.T) {
	checkSetLkOutdated(t, startPostgres(t).engine(t))
}

func TestMariaDBSetLkOutdated(t *testing.T) {
	m := &mariaEnv{srv: testenv.MariaDB(t)}
	checkSetLkOutdated(t, m.engine(t))
}

// checkFileGrowthErrors: write, truncate and fallocate refuse what is not
// a regular file and growth past the volume's capacity with the same
// errors on every path (the routines, and SQLite's general transactions).
func checkFileGrowthErrors(t *testing.T, e *Engine) {
	ctx := context.Background()
	f := testFormat()
	f.Capacity = 1 << 20
	if err := e.Init(ctx, f, false); err != nil {
		t.Fatal(err)
	}
	file, dir, link, missing := meta.Ino(600), meta.Ino(601), meta.Ino(602), meta.Ino(699)
	for _, n := range []struct {
		ino    meta.Ino
		typ    meta.FileType
		target string
	}{{file, meta.TypeFile, ""}, {dir, meta.TypeDirectory, ""}, {link, meta.TypeSymlink, "file"}} {
		if _, err := e.Mknod(ctx, meta.RootCred, meta.RootIno, fmt.Sprint(n.ino), n.ino, n.typ, 0o755, 0, n.target); err != nil {
			t.Fatal(err)
		}
	}
	id, err := e.NextSlices(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	slice := func(size uint32) meta.Slice { return meta.Slice{ID: id, Size: size, Len: size} }
	write := func(ino meta.Ino, size uint32) error { _, _, err := e.Write(ctx, ino, 0, slice(size), 1); return err }
	truncate := func(ino meta.Ino, n uint64) error { _, err := e.Truncate(ctx, meta.RootCred, ino, n); return err }
	fallocate := func(ino meta.Ino, n uint64) error {
		_, err := e.Fallocate(ctx, meta.RootCred, ino, 0, 0, n)
		return err
	}
	for _, c := range []struct {
		what string
		err  error
		want error
	}{
		{"write to a missing inode", write(missing, 4096), meta.ErrNotFound},
		{"write to a directory", write(dir, 4096), meta.ErrIsDir},
		{"write to a symlink", write(link, 4096), meta.ErrInvalid},
		{"write past the capacity", write(file, 2<<20), meta.ErrNoSpace},
		{"write within the capacity", write(file, 512<<10), nil},
		{"truncate a directory", truncate(dir, 10), meta.ErrIsDir},
		{"truncate a symlink", truncate(link, 10), meta.ErrInvalid},
		{"truncate past the capacity", truncate(file, 2<<20), meta.ErrNoSpace},
		{"truncate within the capacity", truncate(file, 1<<20), nil},
		{"fallocate a directory", fallocate(dir, 10), meta.ErrIsDir},
		{"fallocate a symlink", fallocate(link, 10), syscall.ENODEV},
		{"fallocate past the capacity", fallocate(file, 1<<20+1), meta.ErrNoSpace},
		{"fallocate within the capacity", fallocate(file, 1<<20), nil},
	} {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: %v, want %v", c.what, c.err, c.want)
		}
	}
}

func TestPostgresFileGrowthErrors(t *testing.T) {
	checkFileGrowthErrors(t, startPostgres(t).engine(t))
}

func TestMariaDBFileGrowthErrors(t *testing.T) {
	checkFileGrowthErrors(t, (&mariaEnv{srv: testenv.MariaDB(t)}).engine(t))
}

func TestSQLiteFileGrowthErrors(t *testing.T) {
	checkFileGrowthErrors(t, openSQLite(t))
}
