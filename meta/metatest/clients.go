package metatest

import (
	"errors"
	"testing"

	"cairn/meta"
)

// twoClientsSee checks that what one client does, the other sees at once:
// an Engine keeps no state of its own that could hide another machine's
// changes, and counters handed out to one are not handed out to the other.
func twoClientsSee(t *testing.T, open func(t *testing.T) meta.Engine, reopen func(t *testing.T, e meta.Engine) meta.Engine) {
	ctx := t.Context()
	clients, sids := twoClients(t, open, reopen)
	a, b := clients[0], clients[1]
	check := func(err error, format string, args ...any) {
		t.Helper()
		if err != nil {
			t.Fatalf(format+": %v", append(args, err)...)
		}
	}

	first, err := a.NextInodes(ctx, 100)
	check(err, "NextInodes on client 0")
	other, err := b.NextInodes(ctx, 100)
	check(err, "NextInodes on client 1")
	if other < first+100 && first < other+100 {
		t.Errorf("the two clients got overlapping inode batches %d+100 and %d+100", first, other)
	}
	s1, err := a.NextSlices(ctx, 100)
	check(err, "NextSlices on client 0")
	s2, err := b.NextSlices(ctx, 100)
	check(err, "NextSlices on client 1")
	if s2 < s1+100 && s1 < s2+100 {
		t.Errorf("the two clients got overlapping slice batches %d+100 and %d+100", s1, s2)
	}

	if list, err := b.ListSessions(ctx); err != nil || len(list) != 2 {
		t.Errorf("client 1 lists sessions %+v, %v; want both clients' sessions", list, err)
	}

	_, err = a.Mknod(ctx, meta.RootCred, meta.RootIno, "f", first, meta.TypeFile, 0644, 0, "")
	check(err, "Mknod on client 0")
	ino, _, err := b.Lookup(ctx, meta.RootIno, "f")
	if err != nil || ino != first {
		t.Fatalf("client 1 Lookup of a file client 0 made = %d, %v", ino, err)
	}
	_, err = b.SetAttr(ctx, meta.RootCred, first, meta.SetAttr{Mode: u16(0600)})
	check(err, "SetAttr on client 1")
	if attr, err := a.GetAttr(ctx, first); err != nil || attr.Mode != 0600 {
		t.Errorf("client 0 sees mode %o (%v) after client 1's chmod 0600", attr.Mode, err)
	}
	sl := meta.Slice{ID: s1, Size: 5000, Len: 5000}
	_, _, err = a.Write(ctx, first, 0, sl, 1)
	check(err, "Write on client 0")
	if list, err := b.Read(ctx, first, 0); err != nil || len(list) != 1 || list[0] != sl {
		t.Errorf("client 1 reads %+v, %v after client 0's Write", list, err)
	}
	if attr, err := b.GetAttr(ctx, first); err != nil || attr.Length != 5000 {
		t.Errorf("client 1 sees length %d (%v) after client 0's Write", attr.Length, err)
	}
	check(a.SetXattr(ctx, meta.RootCred, first, "user.k", []byte("v"), 0), "SetXattr on client 0")
	if v, err := b.GetXattr(ctx, first, "user.k"); err != nil || string(v) != "v" {
		t.Errorf("client 1 reads xattr %q, %v after client 0 set it", v, err)
	}
	check(a.Flock(ctx, first, meta.LockOwner{Session: sids[0], Owner: 1}, meta.LockWrite), "Flock on client 0")
	if err := b.Flock(ctx, first, meta.LockOwner{Session: sids[1], Owner: 1}, meta.LockWrite); !errors.Is(err, meta.ErrAgain) {
		t.Errorf("client 1 Flock of a file client 0 holds: got %v, want EAGAIN", err)
	}
	if u0, u1 := mustUsage(t, a), mustUsage(t, b); u0 != u1 {
		t.Errorf("the clients disagree on Usage: %+v and %+v", u0, u1)
	}
	_, _, err = b.Unlink(ctx, meta.RootCred, meta.RootIno, "f", sids[1])
	check(err, "Unlink on client 1")
	if _, _, err := a.Lookup(ctx, meta.RootIno, "f"); !errors.Is(err, meta.ErrNotFound) {
		t.Errorf("client 0 Lookup of a file client 1 unlinked: got %v, want ENOENT", err)
	}
	check(b.CloseSession(ctx, sids[1]), "CloseSession on client 1")
	if _, err := a.GetAttr(ctx, first); !errors.Is(err, meta.ErrNotFound) {
		t.Errorf("client 0 GetAttr of client 1's orphan after client 1 closed its session: got %v, want ENOENT", err)
	}
	if err := Verify(ctx, a); err != nil {
		t.Errorf("tree check: %v", err)
	}
}

func mustUsage(t *testing.T, e meta.Engine) meta.Usage {
	t.Helper()
	u, err := e.Usage(t.Context())
	if err != nil {
		t.Fatalf("Usage: %v", err)
	}
	return u
}
