package metatest

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"sync"
	"testing"
	"time"

	"cairn/meta"
)

// RunConcurrency races two clients of one volume: open returns a fresh,
// empty, unformatted engine; reopen returns a second Engine on the same
// database as e (another connection, as a second machine would open), and
// registers its own cleanup. Eight goroutines per client create, link,
// rename, write, truncate and delete in one directory with a small set of
// names, so that they collide constantly; others compact the slice lists
// being written. Only the errors the collisions explain are accepted
// (ENOENT, EEXIST, ENOTEMPTY, ENOTDIR, EISDIR, EPERM for a link to a
// directory); afterwards Verify must find every counter exact, seen from
// either client. Another subtest moves directories into each other from
// both clients at once: no move may create a cycle or lose a directory; and
// a first one checks that each client sees the other's changes at once.
func RunConcurrency(t *testing.T, open func(t *testing.T) meta.Engine, reopen func(t *testing.T, e meta.Engine) meta.Engine) {
	t.Run("TwoClientsSee", func(t *testing.T) { twoClientsSee(t, open, reopen) })
	t.Run("OneDirectory", func(t *testing.T) { raceOneDirectory(t, open, reopen) })
	t.Run("DirectoryMoves", func(t *testing.T) { raceDirectoryMoves(t, open, reopen) })
}

// twoClients formats a volume through open and returns it with a second
// client from reopen, each with a session.
func twoClients(t *testing.T, open func(t *testing.T) meta.Engine, reopen func(t *testing.T, e meta.Engine) meta.Engine) ([]meta.Engine, []uint64) {
	ctx := t.Context()
	first := open(t)
	e1 := meta.Checked(first)
	if err := e1.Init(ctx, volumeFormat("concurrency"), false); err != nil {
		t.Fatalf("Init: %v", err)
	}
	e2 := meta.Checked(reopen(t, first))
	if _, err := e2.Load(ctx); err != nil {
		t.Fatalf("Load on the second client: %v", err)
	}
	clients := []meta.Engine{e1, e2}
	sids := make([]uint64, 2)
	for i, e := range clients {
		sid, err := e.NewSession(ctx, meta.SessionInfo{Hostname: fmt.Sprintf("client%d", i), PID: i + 1, Version: "metatest"})
		if err != nil {
			t.Fatalf("NewSession on client %d: %v", i, err)
		}
		sids[i] = sid
	}
	return clients, sids
}

func raceOneDirectory(t *testing.T, open func(t *testing.T) meta.Engine, reopen func(t *testing.T, e meta.Engine) meta.Engine) {
	ctx := t.Context()
	clients, sids := twoClients(t, open, reopen)
	e1, e2 := clients[0], clients[1]
	dirIno, err := e1.NextInodes(ctx, 1)
	if err != nil {
		t.Fatalf("NextInodes: %v", err)
	}
	if _, err := e1.Mknod(ctx, meta.RootCred, meta.RootIno, "race", dirIno, meta.TypeDirectory, 0777, 0, ""); err != nil {
		t.Fatalf("mkdir: %v", err)
	}

	seed := randomSeed(t)
	t.Logf("seed %d", seed)
	ops := 100
	if testing.Short() {
		ops = 30
	}
	var (
		mu     sync.Mutex
		inos   = map[meta.Ino]int{}
		counts = map[string]int{}
		slices = map[uint64]bool{} // slices a successful Write or Compact referenced
		errs   []string
	)
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(errs) < 20 {
			errs = append(errs, fmt.Sprintf(format, args...))
		}
	}
	var wg sync.WaitGroup
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := racer{
				ctx: ctx, e: clients[w%2], sid: sids[w%2], dir: dirIno,
				rng: rand.New(rand.NewSource(seed + int64(w))),
				fail: func(format string, args ...any) {
					fail("worker %d (client %d): %s", w, w%2, fmt.Sprintf(format, args...))
				},
				newIno: func(ino meta.Ino) bool {
					mu.Lock()
					defer mu.Unlock()
					inos[ino]++
					return inos[ino] == 1
				},
				count: func(op string) {
					mu.Lock()
					counts[op]++
					mu.Unlock()
				},
				used: func(id uint64) {
					mu.Lock()
					slices[id] = true
					mu.Unlock()
				},
			}
			for i := 0; i < ops; i++ {
				r.step()
			}
		}()
	}
	wg.Wait()
	for _, e := range errs {
		t.Error(e)
	}
	t.Logf("successful operations: %v", counts)
	if t.Failed() {
		t.Fatalf("seed %d", seed)
	}
	for i, e := range clients {
		if err := Verify(ctx, e); err != nil {
			t.Errorf("tree check from client %d after the race (seed %d): %v", i, seed, err)
		}
	}
	u1, err1 := e1.Usage(ctx)
	u2, err2 := e2.Usage(ctx)
	if err1 != nil || err2 != nil || u1 != u2 {
		t.Errorf("the clients disagree on Usage: %+v (%v) and %+v (%v)", u1, err1, u2, err2)
	}
	for i, e := range clients {
		if err := e.CloseSession(ctx, sids[i]); err != nil {
			t.Errorf("CloseSession on client %d: %v", i, err)
		}
	}
	if err := Verify(ctx, e1); err != nil {
		t.Errorf("tree check after closing the sessions: %v", err)
	}
	if err := checkNoLeak(ctx, e1, inos, slices); err != nil {
		t.Errorf("seed %d: %v", seed, err)
	}
}

// checkNoLeak checks that every slice in used is either still referenced
// by an inode of inos (chunks 0 and 1, where the race writes) or in the
// dead-slice queue: otherwise its blocks would stay in the object store
// for ever.
func checkNoLeak(ctx context.Context, e meta.Engine, inos map[meta.Ino]int, used map[uint64]bool) error {
	live := map[uint64]bool{}
	for ino := range inos {
		a, err := e.GetAttr(ctx, ino)
		if errors.Is(err, meta.ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("GetAttr %d: %w", ino, err)
		}
		if a.Type != meta.TypeFile {
			continue
		}
		for idx := uint32(0); idx < 2; idx++ {
			list, err := e.Read(ctx, ino, idx)
			if err != nil {
				return fmt.Errorf("Read chunk %d of %d: %w", idx, ino, err)
			}
			for _, s := range list {
				live[s.ID] = true
			}
		}
	}
	dead, err := e.DeadSlices(ctx, 1<<20)
	if err != nil {
		return fmt.Errorf("DeadSlices: %w", err)
	}
	for _, d := range dead {
		live[d.ID] = true
	}
	var leaked []uint64
	for id := range used {
		if !live[id] {
			leaked = append(leaked, id)
		}
	}
	if leaked != nil {
		return fmt.Errorf("%d of %d slices written are neither referenced nor in the dead-slice queue (leaked): %v", len(leaked), len(used), leaked)
	}
	return nil
}

// racer is one goroutine of RunConcurrency.
type racer struct {
	ctx    context.Context
	e      meta.Engine
	sid    uint64
	dir    meta.Ino
	rng    *rand.Rand
	fail   func(format string, args ...any)
	newIno func(meta.Ino) bool
	count  func(op string)
	used   func(id uint64)
}

func (r *racer) name() string { return fmt.Sprintf("n%d", r.rng.Intn(10)) }

// ok reports whether err is nil, and fails the run when err is not one of
// allowed.
func (r *racer) ok(err error, op string, allowed ...error) bool {
	if err == nil {
		r.count(op)
		return true
	}
	for _, a := range allowed {
		if errors.Is(err, a) {
			return false
		}
	}
	r.fail("%s: unexpected error %v", op, err)
	return false
}

func (r *racer) ino() meta.Ino {
	ino, err := r.e.NextInodes(r.ctx, 1)
	if err != nil {
		r.fail("NextInodes: %v", err)
		return 0
	}
	if !r.newIno(ino) {
		r.fail("NextInodes handed out inode %d twice", ino)
	}
	return ino
}

// orphan releases an inode this session just orphaned.
func (r *racer) orphan(ino meta.Ino) {
	if err := r.e.ReleaseOrphan(r.ctx, r.sid, ino); err != nil {
		r.fail("ReleaseOrphan %d: %v", ino, err)
	}
}

func (r *racer) step() {
	root := meta.RootCred
	switch op := r.rng.Intn(11); op {
	case 0, 1:
		if ino := r.ino(); ino != 0 {
			_, err := r.e.Mknod(r.ctx, root, r.dir, r.name(), ino, meta.TypeFile, 0644, 0, "")
			r.ok(err, "create", meta.ErrExists)
		}
	case 2:
		if ino := r.ino(); ino != 0 {
			_, err := r.e.Mknod(r.ctx, root, r.dir, r.name(), ino, meta.TypeDirectory, 0755, 0, "")
			r.ok(err, "mkdir", meta.ErrExists)
		}
	case 3:
		flags := []uint32{0, 0, meta.RenameNoReplace, meta.RenameExchange}[r.rng.Intn(4)]
		_, _, replaced, err := r.e.Rename(r.ctx, root, r.dir, r.name(), r.dir, r.name(), flags, r.sid)
		if r.ok(err, fmt.Sprintf("rename(flags %d)", flags), meta.ErrNotFound, meta.ErrExists, meta.ErrNotEmpty, meta.ErrNotDir, meta.ErrIsDir) && replaced != 0 {
			r.orphan(replaced)
		}
	case 4:
		ino, _, err := r.e.Lookup(r.ctx, r.dir, r.name())
		if r.ok(err, "lookup", meta.ErrNotFound) {
			_, err = r.e.Link(r.ctx, root, ino, r.dir, r.name())
			r.ok(err, "link", meta.ErrNotFound, meta.ErrExists, meta.ErrNotPermitted)
		}
	case 5:
		ino, a, err := r.e.Unlink(r.ctx, root, r.dir, r.name(), r.sid)
		if r.ok(err, "unlink", meta.ErrNotFound, meta.ErrIsDir) && a.Nlink == 0 {
			r.orphan(ino)
		}
	case 6:
		r.ok(r.e.Rmdir(r.ctx, root, r.dir, r.name()), "rmdir", meta.ErrNotFound, meta.ErrNotDir, meta.ErrNotEmpty)
	case 7:
		ino, a, err := r.e.Lookup(r.ctx, r.dir, r.name())
		if !r.ok(err, "lookup", meta.ErrNotFound) {
			return
		}
		if a.Type == meta.TypeDirectory {
			// Fill a subdirectory, so that rmdir and rename over it can
			// meet ENOTEMPTY.
			if child := r.ino(); child != 0 {
				_, err := r.e.Mknod(r.ctx, root, ino, r.name(), child, meta.TypeFile, 0644, 0, "")
				r.ok(err, "create in a subdirectory", meta.ErrNotFound, meta.ErrExists)
			}
			return
		}
		id, err := r.e.NextSlices(r.ctx, 1)
		if err != nil {
			r.fail("NextSlices: %v", err)
			return
		}
		n := uint32(1 + r.rng.Intn(20000))
		s := meta.Slice{Pos: uint32(r.rng.Intn(100000)), ID: id, Size: n, Len: n}
		_, _, err = r.e.Write(r.ctx, ino, uint32(r.rng.Intn(2)), s, time.Now().UnixNano())
		if r.ok(err, "write", meta.ErrNotFound) {
			r.used(id)
		}
	case 8:
		ino, a, err := r.e.Lookup(r.ctx, r.dir, r.name())
		if r.ok(err, "lookup", meta.ErrNotFound) && a.Type == meta.TypeFile {
			_, err = r.e.Truncate(r.ctx, root, ino, uint64(r.rng.Intn(200000)))
			r.ok(err, "truncate", meta.ErrNotFound)
		}
	case 10:
		// Compact the first records of chunk 0 while others write to it.
		ino, a, err := r.e.Lookup(r.ctx, r.dir, r.name())
		if !r.ok(err, "lookup", meta.ErrNotFound) || a.Type != meta.TypeFile {
			return
		}
		list, err := r.e.Read(r.ctx, ino, 0)
		if !r.ok(err, "read", meta.ErrNotFound) || len(list) < 2 {
			return
		}
		old := list[:2]
		start, end := old[0].Pos, old[0].Pos+old[0].Len
		for _, s := range old[1:] {
			start, end = min(start, s.Pos), max(end, s.Pos+s.Len)
		}
		id, err := r.e.NextSlices(r.ctx, 1)
		if err != nil {
			r.fail("NextSlices: %v", err)
			return
		}
		merged := meta.Slice{Pos: start, ID: id, Size: end - start, Len: end - start}
		if r.ok(r.e.Compact(r.ctx, ino, 0, old, merged), "compact", meta.ErrConflict, meta.ErrNotFound) {
			r.used(id)
		}
	case 9:
		ents, err := r.e.Readdir(r.ctx, r.dir, "", 100, r.rng.Intn(2) == 0)
		if r.ok(err, "readdir") {
			for i := 1; i < len(ents); i++ {
				if ents[i].Name <= ents[i-1].Name {
					r.fail("Readdir out of order: %q after %q", ents[i].Name, ents[i-1].Name)
				}
			}
		}
	}
}

// raceDirectoryMoves moves eight directories into one another from 16
// goroutines on two clients. Each directory keeps its name; a move takes it
// from its current parent into another of the eight or the root. Moves that
// would put a directory inside itself must fail with EINVAL, also when two
// moves that are each fine alone would together close a cycle.
func raceDirectoryMoves(t *testing.T, open func(t *testing.T) meta.Engine, reopen func(t *testing.T, e meta.Engine) meta.Engine) {
	ctx := t.Context()
	clients, _ := twoClients(t, open, reopen)
	const n = 8
	first, err := clients[0].NextInodes(ctx, n)
	if err != nil {
		t.Fatalf("NextInodes: %v", err)
	}
	dirs := make([]meta.Ino, n)
	for i := range dirs {
		dirs[i] = first + meta.Ino(i)
		if _, err := clients[0].Mknod(ctx, meta.RootCred, meta.RootIno, fmt.Sprintf("d%d", i), dirs[i], meta.TypeDirectory, 0755, 0, ""); err != nil {
			t.Fatalf("mkdir: %v", err)
		}
	}
	seed := randomSeed(t)
	moves := 60
	if testing.Short() {
		moves = 20
	}
	var (
		mu    sync.Mutex
		errs  []string
		moved int
	)
	var wg sync.WaitGroup
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := clients[w%2]
			rng := rand.New(rand.NewSource(seed + int64(w)))
			for i := 0; i < moves; i++ {
				k := rng.Intn(n)
				to := meta.RootIno
				if j := rng.Intn(n + 1); j < n {
					to = dirs[j]
				}
				a, err := e.GetAttr(ctx, dirs[k])
				if err == nil {
					_, _, _, err = e.Rename(ctx, meta.RootCred, a.Parent, fmt.Sprintf("d%d", k), to, fmt.Sprintf("d%d", k), 0, 0)
				}
				mu.Lock()
				switch {
				case err == nil:
					moved++
				case errors.Is(err, meta.ErrNotFound), errors.Is(err, meta.ErrInvalid):
				default:
					if len(errs) < 20 {
						errs = append(errs, fmt.Sprintf("worker %d: move d%d into %d: %v", w, k, to, err))
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for _, e := range errs {
		t.Error(e)
	}
	t.Logf("seed %d: %d successful moves", seed, moved)
	for i, e := range clients {
		if err := Verify(ctx, e); err != nil {
			t.Errorf("tree check from client %d after racing directory moves (a cycle hides directories from the root): %v", i, err)
		}
	}
}
