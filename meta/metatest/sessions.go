package metatest

import (
	"sync"
	"time"

	"cairn/meta"
)

func sessionTests() []test {
	return []test{
		{"Session/NewAndList", testSessionList},
		{"Session/Heartbeat", testSessionHeartbeat},
		{"Session/CloseReleasesOrphans", testSessionCloseOrphans},
		{"Session/CloseReleasesLocks", testSessionCloseLocks},
		{"Session/CleanStale", testSessionCleanStale},
		{"IDs/NextInodes", testNextInodes},
		{"IDs/NextSlices", testNextSlices},
		{"IDs/Concurrent", testIDsConcurrent},
		{"Stats", func(x *env) { _ = x.e.Stats() }},
	}
}

func (x *env) sessions() map[uint64]meta.SessionInfo {
	x.t.Helper()
	list, err := x.e.ListSessions(x.ctx)
	x.must(err, "ListSessions")
	out := map[uint64]meta.SessionInfo{}
	for _, s := range list {
		if _, dup := out[s.ID]; dup {
			x.t.Errorf("ListSessions lists session %d twice", s.ID)
		}
		out[s.ID] = s
	}
	return out
}

func testSessionList(x *env) {
	before := time.Now().Add(-time.Second)
	other := x.session("other")
	if other == x.sid {
		x.t.Fatalf("two NewSession calls returned the same id %d", other)
	}
	got := x.sessions()
	if len(got) != 2 {
		x.t.Errorf("ListSessions lists %d sessions, want 2: %+v", len(got), got)
	}
	s, ok := got[other]
	if !ok {
		x.t.Fatalf("ListSessions does not list session %d", other)
	}
	if s.Hostname != "other" || s.MountPoint != "/mnt/other" || s.Version != "metatest" || s.PID <= 0 {
		x.t.Errorf("session %d is listed as %+v; the info given was lost", other, s)
	}
	if s.Heartbeat.Before(before) || s.Heartbeat.After(time.Now().Add(time.Second)) {
		x.t.Errorf("session %d has heartbeat %v, want about now", other, s.Heartbeat)
	}
	x.must(x.e.CloseSession(x.ctx, other), "CloseSession")
	if _, ok := x.sessions()[other]; ok {
		x.t.Errorf("session %d is still listed after CloseSession", other)
	}
	if _, ok := x.sessions()[x.sid]; !ok {
		x.t.Errorf("closing one session made another (%d) disappear", x.sid)
	}
}

// waitNewerHeartbeat refreshes sid until its listed heartbeat is later than
// t0 (engines may store heartbeats coarsely, e.g. in seconds).
func (x *env) waitNewerHeartbeat(sid uint64, t0 time.Time) time.Time {
	x.t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		x.must(x.e.Heartbeat(x.ctx, sid), "Heartbeat")
		hb := x.sessions()[sid].Heartbeat
		if hb.After(t0) {
			return hb
		}
		if time.Now().After(deadline) {
			x.t.Fatalf("session %d: heartbeat stays %v after 3 s of Heartbeat calls", sid, hb)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func testSessionHeartbeat(x *env) {
	hb0 := x.sessions()[x.sid].Heartbeat
	x.waitNewerHeartbeat(x.sid, hb0)
}

func testSessionCloseOrphans(x *env) {
	other := x.session("other")
	d := x.mkdir(meta.RootIno, "d")
	f := x.create(d, "f")
	s := x.write(f, 0, 0, 10000)
	kept := x.create(d, "kept")
	base := x.usage()
	ino, a, err := x.e.Unlink(x.ctx, meta.RootCred, d, "f", other)
	x.must(err, "Unlink")
	if ino != f || a.Nlink != 0 {
		x.t.Fatalf("Unlink returned inode %d nlink %d, want %d nlink 0", ino, a.Nlink, f)
	}
	if u := x.usage(); u != base {
		x.t.Errorf("Usage changed on Unlink of an open file: %+v, was %+v", u, base)
	}
	// A different session releasing it is a no-op.
	x.must(x.e.ReleaseOrphan(x.ctx, x.sid, f), "ReleaseOrphan by another session")
	if _, err := x.e.GetAttr(x.ctx, f); err != nil {
		x.t.Errorf("ReleaseOrphan by a session that does not hold the orphan deleted it: %v", err)
	}
	x.must(x.e.CloseSession(x.ctx, other), "CloseSession")
	_, err = x.e.GetAttr(x.ctx, f)
	x.want(meta.ErrNotFound, err, "GetAttr of an orphan after its session closed")
	want := meta.Usage{Space: base.Space - 12288, Inodes: base.Inodes - 1}
	if u := x.usage(); u != want {
		x.t.Errorf("Usage after CloseSession = %+v, want %+v", u, want)
	}
	if _, err := x.e.GetAttr(x.ctx, kept); err != nil {
		x.t.Errorf("CloseSession deleted a linked file: %v", err)
	}
	if _, ok := x.deadIDs()[s.ID]; !ok {
		x.t.Errorf("the released orphan's slice %d is not in DeadSlices after CloseSession", s.ID)
	}
}

func testSessionCloseLocks(x *env) {
	other := x.session("other")
	f := x.create(meta.RootIno, "f")
	a := meta.LockOwner{Session: other, Owner: 7}
	b := meta.LockOwner{Session: x.sid, Owner: 8}
	x.must(x.e.Flock(x.ctx, f, a, meta.LockWrite), "Flock")
	x.must(x.e.SetLk(x.ctx, f, a, meta.Lock{Type: meta.LockWrite, Start: 0, End: 99, Pid: 1}), "SetLk")
	x.want(meta.ErrAgain, x.e.Flock(x.ctx, f, b, meta.LockRead), "Flock against a held lock")
	x.must(x.e.CloseSession(x.ctx, other), "CloseSession")
	x.want(nil, x.e.Flock(x.ctx, f, b, meta.LockWrite), "Flock after the holder's session closed")
	x.want(nil, x.e.SetLk(x.ctx, f, b, meta.Lock{Type: meta.LockWrite, Start: 0, End: 99, Pid: 2}), "SetLk after the holder's session closed")
}

func testSessionCleanStale(x *env) {
	stale := x.session("stale")
	lockFile := x.create(meta.RootIno, "locked")
	x.must(x.e.Flock(x.ctx, lockFile, meta.LockOwner{Session: stale, Owner: 1}, meta.LockWrite), "Flock")
	x.must(x.e.SetLk(x.ctx, lockFile, meta.LockOwner{Session: stale, Owner: 1}, meta.Lock{Type: meta.LockWrite, End: toEnd, Pid: 1}), "SetLk")
	f := x.create(meta.RootIno, "f")
	x.write(f, 0, 0, 5000)
	_, _, err := x.e.Unlink(x.ctx, meta.RootCred, meta.RootIno, "f", stale)
	x.must(err, "Unlink")
	n, err := x.e.CleanStaleSessions(x.ctx, time.Now().Add(-time.Hour))
	x.must(err, "CleanStaleSessions")
	if n != 0 {
		x.t.Errorf("CleanStaleSessions(an hour ago) closed %d sessions, want 0", n)
	}
	// Make x.sid's heartbeat strictly newer than stale's, by the engine's
	// own clock and precision, then clean up to x.sid's heartbeat.
	hb := x.waitNewerHeartbeat(x.sid, x.sessions()[stale].Heartbeat)
	n, err = x.e.CleanStaleSessions(x.ctx, hb)
	x.must(err, "CleanStaleSessions")
	if n != 1 {
		x.t.Errorf("CleanStaleSessions closed %d sessions, want 1", n)
	}
	got := x.sessions()
	if _, ok := got[stale]; ok {
		x.t.Errorf("stale session %d is still listed", stale)
	}
	if _, ok := got[x.sid]; !ok {
		x.t.Errorf("live session %d (heartbeat %v, not older than %v) was closed", x.sid, hb, hb)
	}
	_, err = x.e.GetAttr(x.ctx, f)
	x.want(meta.ErrNotFound, err, "GetAttr of a stale session's orphan after CleanStaleSessions")
	if u := x.usage(); u != (meta.Usage{Inodes: 2}) {
		x.t.Errorf("Usage after the stale session's orphan went: %+v, want {0 2}", u)
	}
	live := meta.LockOwner{Session: x.sid, Owner: 1}
	x.want(nil, x.e.Flock(x.ctx, lockFile, live, meta.LockWrite), "Flock after the holder's session was cleaned up")
	x.want(nil, x.e.SetLk(x.ctx, lockFile, live, meta.Lock{Type: meta.LockWrite, End: toEnd, Pid: 2}), "SetLk after the holder's session was cleaned up")
}

func testNextInodes(x *env) {
	seen := map[meta.Ino]bool{meta.RootIno: true}
	for _, n := range []uint64{1, 1, 10, 100, 3} {
		first, err := x.e.NextInodes(x.ctx, n)
		x.must(err, "NextInodes(%d)", n)
		if first == 0 {
			x.t.Fatalf("NextInodes returned 0")
		}
		for i := uint64(0); i < n; i++ {
			if seen[first+meta.Ino(i)] {
				x.t.Fatalf("NextInodes(%d) = %d overlaps an earlier batch or the root", n, first)
			}
			seen[first+meta.Ino(i)] = true
		}
	}
}

func testNextSlices(x *env) {
	seen := map[uint64]bool{}
	for _, n := range []uint64{1, 1, 10, 100, 3} {
		first, err := x.e.NextSlices(x.ctx, n)
		x.must(err, "NextSlices(%d)", n)
		if first == 0 {
			x.t.Fatalf("NextSlices returned 0")
		}
		for i := uint64(0); i < n; i++ {
			if seen[first+i] {
				x.t.Fatalf("NextSlices(%d) = %d overlaps an earlier batch", n, first)
			}
			seen[first+i] = true
		}
	}
}

func testIDsConcurrent(x *env) {
	var mu sync.Mutex
	inos := map[meta.Ino]bool{}
	slices := map[uint64]bool{}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				ino, err := x.e.NextInodes(x.ctx, 2)
				if err != nil {
					x.t.Errorf("NextInodes: %v", err)
					return
				}
				id, err := x.e.NextSlices(x.ctx, 2)
				if err != nil {
					x.t.Errorf("NextSlices: %v", err)
					return
				}
				mu.Lock()
				for k := 0; k < 2; k++ {
					if inos[ino+meta.Ino(k)] || slices[id+uint64(k)] {
						x.t.Errorf("concurrent NextInodes/NextSlices handed out inode %d or slice %d twice", ino+meta.Ino(k), id+uint64(k))
					}
					inos[ino+meta.Ino(k)] = true
					slices[id+uint64(k)] = true
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}
