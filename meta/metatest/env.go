package metatest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"cairn/meta"
)

// Credentials the suite acts with besides root.
var (
	nobody = meta.Cred{Uid: 65534, Gid: 65534}
	alice  = meta.Cred{Uid: 1001, Gid: 1001}
	bob    = meta.Cred{Uid: 1002, Gid: 1002}
)

// volumeFormat is the settings the suite formats every engine with.
func volumeFormat(name string) meta.Format {
	return meta.Format{
		Name:        name,
		UUID:        "0b7c3c9e-5d47-4a8e-9d1f-2f1c7e6a9b01",
		Storage:     "mem",
		BlockSize:   4 << 20,
		Compression: "none",
		TrashDays:   0,
		Version:     meta.FormatVersion,
	}
}

// env is one subtest's formatted engine with a session of its own.
type env struct {
	t   *testing.T
	e   meta.Engine
	ctx context.Context
	sid uint64
	// orphans are the inodes of session sid unlinked and not yet released,
	// which Verify counts in Usage.
	orphans    map[meta.Ino]bool
	skipVerify bool
}

func newEnv(t *testing.T, open func(t *testing.T) meta.Engine) *env {
	t.Helper()
	e := open(t)
	ctx := t.Context()
	if err := e.Init(ctx, volumeFormat("metatest"), false); err != nil {
		t.Fatalf("Init: %v", err)
	}
	x := &env{t: t, e: e, ctx: ctx, orphans: map[meta.Ino]bool{}}
	x.sid = x.session("metatest")
	return x
}

func (x *env) session(host string) uint64 {
	x.t.Helper()
	sid, err := x.e.NewSession(x.ctx, meta.SessionInfo{
		Hostname: host, MountPoint: "/mnt/" + host, PID: os.Getpid(), Version: "metatest",
	})
	if err != nil {
		x.t.Fatalf("NewSession: %v", err)
	}
	if sid == 0 {
		x.t.Fatalf("NewSession returned session id 0")
	}
	return sid
}

// want checks that err is want (nil: no error). A wrong error fails the
// subtest but lets it go on, so that one run shows every disagreement.
func (x *env) want(want, err error, format string, args ...any) bool {
	x.t.Helper()
	what := fmt.Sprintf(format, args...)
	if want == nil {
		if err != nil {
			x.t.Errorf("%s: unexpected error %v", what, err)
			return false
		}
		return true
	}
	if !errors.Is(err, want) {
		x.t.Errorf("%s: got error %v, want %v", what, err, want)
		return false
	}
	return true
}

// must stops the subtest when a step it builds on fails.
func (x *env) must(err error, format string, args ...any) {
	x.t.Helper()
	if err != nil {
		x.t.Fatalf("%s: %v", fmt.Sprintf(format, args...), err)
	}
}

func (x *env) newIno() meta.Ino {
	x.t.Helper()
	ino, err := x.e.NextInodes(x.ctx, 1)
	x.must(err, "NextInodes")
	return ino
}

func (x *env) newSliceID() uint64 {
	x.t.Helper()
	id, err := x.e.NextSlices(x.ctx, 1)
	x.must(err, "NextSlices")
	return id
}

// mknodAs creates parent/name as cred and fails the subtest on error.
func (x *env) mknodAs(cred meta.Cred, parent meta.Ino, name string, typ meta.FileType, mode uint16) (meta.Ino, meta.Attr) {
	x.t.Helper()
	ino := x.newIno()
	a, err := x.e.Mknod(x.ctx, cred, parent, name, ino, typ, mode, 0, "")
	x.must(err, "Mknod %q type %d in %d", name, typ, parent)
	return ino, a
}

func (x *env) mkdir(parent meta.Ino, name string) meta.Ino {
	x.t.Helper()
	ino, _ := x.mknodAs(meta.RootCred, parent, name, meta.TypeDirectory, 0755)
	return ino
}

func (x *env) create(parent meta.Ino, name string) meta.Ino {
	x.t.Helper()
	ino, _ := x.mknodAs(meta.RootCred, parent, name, meta.TypeFile, 0644)
	return ino
}

func (x *env) symlink(parent meta.Ino, name, target string) meta.Ino {
	x.t.Helper()
	ino := x.newIno()
	_, err := x.e.Mknod(x.ctx, meta.RootCred, parent, name, ino, meta.TypeSymlink, 0777, 0, target)
	x.must(err, "symlink %q -> %q", name, target)
	return ino
}

func (x *env) attr(ino meta.Ino) meta.Attr {
	x.t.Helper()
	a, err := x.e.GetAttr(x.ctx, ino)
	x.must(err, "GetAttr %d", ino)
	return a
}

func (x *env) lookup(parent meta.Ino, name string) meta.Ino {
	x.t.Helper()
	ino, _, err := x.e.Lookup(x.ctx, parent, name)
	x.must(err, "Lookup %q in %d", name, parent)
	return ino
}

// gone checks that parent/name does not exist.
func (x *env) gone(parent meta.Ino, name string) {
	x.t.Helper()
	_, _, err := x.e.Lookup(x.ctx, parent, name)
	x.want(meta.ErrNotFound, err, "Lookup %q in %d after it was removed", name, parent)
}

// unlink removes parent/name as root and remembers a resulting orphan.
func (x *env) unlink(parent meta.Ino, name string) (meta.Ino, meta.Attr) {
	x.t.Helper()
	ino, a, err := x.e.Unlink(x.ctx, meta.RootCred, parent, name, x.sid)
	x.must(err, "Unlink %q in %d", name, parent)
	if a.Nlink == 0 && a.Type != meta.TypeDirectory {
		x.orphans[ino] = true
	}
	return ino, a
}

func (x *env) release(ino meta.Ino) {
	x.t.Helper()
	x.must(x.e.ReleaseOrphan(x.ctx, x.sid, ino), "ReleaseOrphan %d", ino)
	delete(x.orphans, ino)
}

// rename renames as root and remembers a replaced orphan.
func (x *env) rename(sp meta.Ino, sn string, dp meta.Ino, dn string, flags uint32) (meta.Ino, meta.Ino) {
	x.t.Helper()
	moved, _, replaced, err := x.e.Rename(x.ctx, meta.RootCred, sp, sn, dp, dn, flags, x.sid)
	x.must(err, "Rename %d/%q -> %d/%q flags %d", sp, sn, dp, dn, flags)
	if replaced != 0 {
		x.orphans[replaced] = true
	}
	return moved, replaced
}

// write appends a fresh slice of n bytes at pos of chunk idx.
func (x *env) write(ino meta.Ino, idx uint32, pos, n uint32) meta.Slice {
	x.t.Helper()
	s := meta.Slice{Pos: pos, ID: x.newSliceID(), Size: n, Off: 0, Len: n}
	_, _, err := x.e.Write(x.ctx, ino, idx, s, time.Now().UnixNano())
	x.must(err, "Write %+v to chunk %d of %d", s, idx, ino)
	return s
}

func (x *env) read(ino meta.Ino, idx uint32) []meta.Slice {
	x.t.Helper()
	list, err := x.e.Read(x.ctx, ino, idx)
	x.must(err, "Read chunk %d of %d", idx, ino)
	return list
}

func (x *env) usage() meta.Usage {
	x.t.Helper()
	u, err := x.e.Usage(x.ctx)
	x.must(err, "Usage")
	return u
}

// names lists a directory completely, in pages.
func (x *env) names(dir meta.Ino) []string {
	x.t.Helper()
	var out []string
	after := ""
	for {
		ents, err := x.e.Readdir(x.ctx, dir, after, 1000, false)
		x.must(err, "Readdir %d after %q", dir, after)
		if len(ents) == 0 {
			return out
		}
		for _, en := range ents {
			out = append(out, en.Name)
		}
		after = ents[len(ents)-1].Name
	}
}

// deadIDs lists the whole dead-slice queue as a set.
func (x *env) deadIDs() map[uint64]uint32 {
	x.t.Helper()
	dead, err := x.e.DeadSlices(x.ctx, 1<<20)
	x.must(err, "DeadSlices")
	out := map[uint64]uint32{}
	for _, d := range dead {
		out[d.ID] = d.Size
	}
	return out
}

// mark returns a time between the operations before and after it: it lies
// 1 ms after the time it was called and 1 ms before it returns, so that an
// engine keeping times in microseconds (or coarser, up to 1 ms) still sets
// times >= mark afterwards and has set times < mark before.
func (x *env) mark() int64 {
	start := time.Now()
	time.Sleep(2 * time.Millisecond)
	for time.Since(start) < 2*time.Millisecond {
		time.Sleep(time.Millisecond)
	}
	return start.UnixNano() + int64(time.Millisecond)
}

func (x *env) verify() {
	x.t.Helper()
	var orphans []meta.Ino
	for ino := range x.orphans {
		orphans = append(orphans, ino)
	}
	sort.Slice(orphans, func(i, j int) bool { return orphans[i] < orphans[j] })
	if err := Verify(x.ctx, x.e, orphans...); err != nil {
		x.t.Errorf("tree check after the subtest: %v", err)
	}
}

// randomSeed is the seed of a random walk: METATEST_SEED when set, to
// replay a failure, else the clock.
func randomSeed(t *testing.T) int64 {
	if s := os.Getenv("METATEST_SEED"); s != "" {
		seed, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("METATEST_SEED=%q is not an integer", s)
		}
		return seed
	}
	return time.Now().UnixNano()
}

func u16(v uint16) *uint16 { return &v }
func u32(v uint32) *uint32 { return &v }
func i64(v int64) *int64   { return &v }
