package metatest

import (
	"fmt"
	"reflect"
	"sync/atomic"
	"time"

	"cairn/meta"
)

// The trash lives in meta.Client, over any engine (see meta/trash.go):
// these check that every engine carries it out the same way.
func trashTests() []test {
	return []test{
		{"Trash/KeepRestoreExpire", testTrashKeepRestoreExpire},
		{"Trash/Refusals", testTrashRefusals},
		{"Trash/Off", testTrashOff},
		{"Trash/PurgedFolder", testTrashPurgedFolder},
		{"Trash/ConcurrentPurge", testTrashConcurrentPurge},
		{"Trash/RemoveTree", testRemoveTree},
	}
}

// trashClient formats the env's volume with a trash of days days and
// returns a started client whose clock is *clock.
func (x *env) trashClient(days int, clock *time.Time) *meta.Client {
	x.t.Helper()
	f := volumeFormat("metatest")
	f.TrashDays = days
	x.must(x.e.Init(x.ctx, f, true), "Init --force with TrashDays %d", days)
	c := meta.NewClient(x.e, meta.ClientConfig{Heartbeat: time.Hour})
	c.SetClock(func() time.Time { return *clock })
	x.must(c.Start(x.ctx), "Start a client")
	x.t.Cleanup(func() { c.Close(x.ctx) })
	if c.TrashDays() != days {
		x.t.Fatalf("client reads TrashDays %d, want %d", c.TrashDays(), days)
	}
	return c
}

// kept is what a restore must bring back byte-exact: attributes but
// ctime, the slices, the xattrs.
type kept struct {
	attr   meta.Attr
	slices []meta.Slice
	xattr  []byte
}

func (x *env) keptOf(ino meta.Ino) kept {
	x.t.Helper()
	a := x.attr(ino)
	a.Ctime = 0
	v, err := x.e.GetXattr(x.ctx, ino, "user.k")
	x.must(err, "GetXattr user.k of %d", ino)
	return kept{attr: a, slices: x.read(ino, 0), xattr: v}
}

// makeKept creates parent/name owned by alice with data and an xattr.
func (x *env) makeKept(parent meta.Ino, name string) meta.Ino {
	x.t.Helper()
	ino, _ := x.mknodAs(alice, parent, name, meta.TypeFile, 0640)
	x.write(ino, 0, 0, 5000)
	x.must(x.e.SetXattr(x.ctx, alice, ino, "user.k", []byte(name), 0), "SetXattr")
	return ino
}

func testTrashKeepRestoreExpire(x *env) {
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	c := x.trashClient(1, &now)
	ctx := x.ctx
	d, _ := x.mknodAs(alice, meta.RootIno, "d", meta.TypeDirectory, 0755)
	base := x.usage()

	f := x.makeKept(d, "f")
	victim := x.makeKept(d, "victim")
	x.makeKept(d, "new")
	want := map[meta.Ino]kept{f: x.keptOf(f), victim: x.keptOf(victim)}
	full := x.usage()

	// Delete f, replace victim by a rename, remove the emptied d.
	_, a, err := c.Unlink(ctx, alice, d, "f")
	x.must(err, "Unlink d/f with the trash on")
	if a.Nlink != 1 {
		x.t.Errorf("Unlink into the trash returns nlink %d, want 1 (the file lives on)", a.Nlink)
	}
	_, _, replaced, err := c.Rename(ctx, alice, d, "new", d, "victim", 0)
	x.must(err, "Rename d/new over d/victim")
	if replaced != 0 {
		x.t.Errorf("Rename over a file kept in the trash reports replaced %d, want 0", replaced)
	}
	gone, _ := x.unlink(d, "victim")
	x.release(gone)
	x.must(c.Rmdir(ctx, alice, meta.RootIno, "d"), "Rmdir d")
	x.gone(meta.RootIno, "d")

	hourName, hour := meta.TrashHour(now)
	for _, name := range []string{meta.TrashEntryName(d, f, "f"), meta.TrashEntryName(d, victim, "victim"), meta.TrashEntryName(meta.RootIno, d, "d")} {
		x.lookup(hour, name)
	}
	if x.lookup(meta.RootIno, meta.TrashName) != meta.TrashIno || x.lookup(meta.TrashIno, hourName) != hour {
		x.t.Errorf("the trash or its hour folder %s has the wrong inode", hourName)
	}
	es, err := c.Readdir(ctx, meta.RootIno, "", 100, false)
	x.must(err, "Readdir of the root")
	for _, e := range es {
		if e.Name == meta.TrashName {
			x.t.Errorf("the root's listing shows %s", meta.TrashName)
		}
	}
	// The trash holds the kept files' space and inodes: all but the
	// file that replaced victim and was then unlinked is still counted.
	if u := x.usage(); u.Space < full.Space-SpaceOf(x.attr(f)) || u.Inodes < full.Inodes {
		x.t.Errorf("Usage with the trash full = %+v, want at least the space of the kept files (%+v before)", u, full)
	}

	// Restore f: d comes back first, from the trash, then f into it.
	r := c.NewTrashRestorer()
	var restored []string
	r.Restored = func(entry string, parent meta.Ino, name string) { restored = append(restored, entry) }
	var skipped []string
	r.Skipped = func(entry, reason string) { skipped = append(skipped, entry+": "+reason) }
	x.must(r.Restore(ctx, hour, meta.TrashEntryName(d, f, "f")), "restore f")
	if x.lookup(meta.RootIno, "d") != d || x.lookup(d, "f") != f {
		x.t.Fatalf("restore of d/f did not bring back d and f")
	}
	x.makeKept(d, "victim")
	x.must(r.RestoreFolder(ctx, hour), "restore the rest of the hour folder")
	if len(skipped) != 1 || len(restored) != 2 {
		x.t.Errorf("restore put back %v and skipped %v; want d and f back and victim skipped (a new victim exists)", restored, skipped)
	}
	x.lookup(hour, meta.TrashEntryName(d, victim, "victim"))
	if got := x.keptOf(f); !reflect.DeepEqual(got, want[f]) {
		x.t.Errorf("restored f = %+v, want %+v", got, want[f])
	}
	if got := x.keptOf(victim); !reflect.DeepEqual(got, want[victim]) {
		x.t.Errorf("the replaced file in the trash = %+v, want %+v", got, want[victim])
	}
	x.want(meta.ErrNotInTrash, r.Restore(ctx, hour, "nothing"), "restore of a name that is no trash entry")
	for _, name := range []string{"victim", "f"} {
		gone, _ := x.unlink(d, name)
		x.release(gone)
	}

	// Expiry: a day after the hour ended, not a nanosecond before.
	_, _, err = c.Unlink(ctx, alice, meta.RootIno, "nope")
	x.want(meta.ErrNotFound, err, "Unlink of a missing name with the trash on")
	end := now.Truncate(time.Hour).Add(time.Hour + 24*time.Hour)
	n, err := c.PurgeTrash(ctx, end.Add(-time.Nanosecond))
	x.must(err, "PurgeTrash before expiry")
	if n != 0 {
		x.t.Errorf("PurgeTrash before expiry removed %d entries", n)
	}
	n, err = c.PurgeTrash(ctx, end)
	x.must(err, "PurgeTrash at expiry")
	if n != 2 {
		x.t.Errorf("PurgeTrash at expiry removed %d entries, want 2 (victim and the hour folder)", n)
	}
	x.gone(meta.TrashIno, hourName)
	if u := x.usage(); u.Space != base.Space || u.Inodes != base.Inodes+1 {
		x.t.Errorf("Usage after the purge = %+v, want %+v plus the trash itself", u, base)
	}
}

func testTrashRefusals(x *env) {
	now := time.Now()
	c := x.trashClient(1, &now)
	ctx := x.ctx
	x.create(meta.RootIno, "a")
	_, _, err := c.Unlink(ctx, meta.RootCred, meta.RootIno, "a")
	x.must(err, "Unlink a")
	_, hour := meta.TrashHour(now)
	for _, dir := range []meta.Ino{meta.TrashIno, hour} {
		_, _, err := c.Mknod(ctx, meta.RootCred, dir, "x", meta.TypeFile, 0644, 0, "")
		x.want(meta.ErrNotPermitted, err, "Mknod in trash directory %d", dir)
	}
	_, _, err = c.Mknod(ctx, meta.RootCred, meta.RootIno, meta.TrashName, meta.TypeDirectory, 0755, 0, "")
	x.want(meta.ErrNotPermitted, err, "Mknod of the trash's name")
	b := x.create(meta.RootIno, "b")
	_, err = c.Link(ctx, meta.RootCred, b, hour, "b")
	x.want(meta.ErrNotPermitted, err, "Link into the trash")
	_, _, _, err = c.Rename(ctx, meta.RootCred, meta.RootIno, "b", hour, "b", 0)
	x.want(meta.ErrNotPermitted, err, "Rename into the trash")
	_, _, _, err = c.Rename(ctx, meta.RootCred, hour, entryOf(x, hour), meta.RootIno, "back", 0)
	x.want(meta.ErrNotPermitted, err, "Rename out of the trash")
	// Root removes from the trash for good.
	ino, a, err := c.Unlink(ctx, meta.RootCred, hour, entryOf(x, hour))
	x.must(err, "Unlink in the trash")
	if a.Nlink != 0 {
		x.t.Errorf("Unlink in the trash leaves inode %d with nlink %d, want 0", ino, a.Nlink)
	}
	x.gone(hour, meta.TrashEntryName(meta.RootIno, ino, "a"))
}

// entryOf is the first entry of the trash folder dir.
func entryOf(x *env, dir meta.Ino) string {
	x.t.Helper()
	es, err := x.e.Readdir(x.ctx, dir, "", 1, false)
	x.must(err, "Readdir trash folder")
	if len(es) == 0 {
		x.t.Fatalf("trash folder %d is empty", dir)
	}
	return es[0].Name
}

func testTrashOff(x *env) {
	now := time.Now()
	c := x.trashClient(0, &now)
	base := x.usage()
	x.makeKept(meta.RootIno, "f")
	_, a, err := c.Unlink(x.ctx, alice, meta.RootIno, "f")
	x.must(err, "Unlink with the trash off")
	if a.Nlink != 0 {
		x.t.Errorf("Unlink with the trash off leaves nlink %d", a.Nlink)
	}
	x.gone(meta.RootIno, meta.TrashName)
	if u := x.usage(); u != base {
		x.t.Errorf("Usage after an unlink with the trash off = %+v, want %+v", u, base)
	}
}

// testRemoveTree removes a tree of directories and files in parallel.
func testRemoveTree(x *env) {
	now := time.Now()
	c := x.trashClient(0, &now)
	base := x.usage()
	top := x.mkdir(meta.RootIno, "top")
	made := int64(1)
	for i := range 4 {
		d := x.mkdir(top, fmt.Sprint("d", i))
		made++
		for j := range 30 {
			f := x.create(d, fmt.Sprint("f", j))
			x.write(f, 0, 0, 100)
			made++
		}
		x.mkdir(d, "empty")
		made++
	}
	var removed atomic.Int64
	x.must(c.RemoveTree(x.ctx, meta.RootCred, meta.RootIno, "top", top, 8, &removed), "RemoveTree")
	if removed.Load() != made {
		x.t.Errorf("RemoveTree counted %d removals, want %d", removed.Load(), made)
	}
	x.gone(meta.RootIno, "top")
	if u := x.usage(); u != base {
		x.t.Errorf("Usage after RemoveTree = %+v, want %+v", u, base)
	}
}

// testTrashPurgedFolder: the hour folder a client remembers may be purged
// under it (--trash-days lowered to 0 elsewhere); its next deletion still
// goes to the trash.
func testTrashPurgedFolder(x *env) {
	now := time.Now()
	c := x.trashClient(1, &now)
	x.create(meta.RootIno, "a")
	b := x.create(meta.RootIno, "b")
	_, _, err := c.Unlink(x.ctx, meta.RootCred, meta.RootIno, "a")
	x.must(err, "Unlink a")
	other := meta.NewClient(x.e, meta.ClientConfig{Heartbeat: time.Hour})
	x.must(other.Start(x.ctx), "Start another client")
	defer other.Close(x.ctx)
	other.SetTrashDays(0)
	_, err = other.PurgeTrash(x.ctx, now)
	x.must(err, "PurgeTrash with the trash off, by another client")
	x.gone(meta.TrashIno, hourName(now))
	_, _, err = c.Unlink(x.ctx, meta.RootCred, meta.RootIno, "b")
	x.must(err, "Unlink b after the hour folder was purged")
	_, hour := meta.TrashHour(now)
	x.lookup(hour, meta.TrashEntryName(meta.RootIno, b, "b"))
	x.want(meta.ErrNotPermitted, c.Rmdir(x.ctx, meta.RootCred, meta.RootIno, meta.TrashName), "Rmdir of the trash")
}

func hourName(t time.Time) string {
	name, _ := meta.TrashHour(t)
	return name
}

// testTrashConcurrentPurge: two clients purging the same trash at once
// (a mount's job and 'cairn config --trash-days 0') both succeed, and
// nothing is left.
func testTrashConcurrentPurge(x *env) {
	now := time.Now()
	c := x.trashClient(1, &now)
	base := x.usage()
	top := x.mkdir(meta.RootIno, "top")
	for i := range 6 {
		d := x.mkdir(top, fmt.Sprint("d", i))
		for j := range 40 {
			x.create(d, fmt.Sprint("f", j))
		}
	}
	moved, err := c.MoveToTrash(x.ctx, meta.RootCred, meta.RootIno, "top")
	if err != nil || !moved {
		x.t.Fatalf("MoveToTrash of a tree = %v, %v", moved, err)
	}
	other := meta.NewClient(x.e, meta.ClientConfig{Heartbeat: time.Hour})
	x.must(other.Start(x.ctx), "Start another client")
	defer other.Close(x.ctx)
	errs := make(chan error, 2)
	for _, cl := range []*meta.Client{c, other} {
		cl.SetTrashDays(0)
		go func() {
			_, err := cl.PurgeTrash(x.ctx, now)
			errs <- err
		}()
	}
	for range 2 {
		x.must(<-errs, "PurgeTrash by two clients at once")
	}
	x.gone(meta.TrashIno, hourName(now))
	if u := x.usage(); u.Space != base.Space || u.Inodes != base.Inodes+1 {
		x.t.Errorf("Usage after two purges = %+v, want %+v plus the trash itself", u, base)
	}
}
