package fuse

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	gofuse "github.com/hanwen/go-fuse/v2/fuse"

	"cairn/internal/testenv"
	"cairn/meta"
	"cairn/volume"
)

// BenchmarkCeiling sets cairn's mkdir and rmdir beside what any FUSE file
// system could reach on this machine, on the same engine in one run:
//
//   - floor: the engine's own durable write (meta.FloorProber), called in
//     a loop, no FUSE;
//   - null: the operation through a mount of ceilingFS, which keeps its
//     names in memory and writes nothing: the kernel's, go-fuse's and the
//     system call's own cost, with the requests a cairn mount gets (a
//     LOOKUP of the name, a GETATTR of the directory for the permission
//     check, the MKDIR or RMDIR itself);
//   - ceiling: the same with one floor write per MKDIR and RMDIR and one
//     floor read per LOOKUP of a name it does not hold (the issue's "one
//     write and at most one read"): the least a durable file system over
//     this engine can do that, as cairn, asks the database whether a name
//     another client may have made exists;
//   - vfs: cairn's VFS called in a loop as the kernel's requests would
//     call it, without FUSE: cairn's own work, the engine's included;
//   - cairn: a cairn mount of a volume on the engine, whose directory
//     this client did not make, so that the LOOKUP of a new name asks the
//     engine as it does a second after a directory was made.
//
// ceiling minus floor is what FUSE and the look-up's read add here to a
// single durable write; vfs minus floor is cairn's work beyond that
// write; cairn minus vfs is what serving it through FUSE costs. Each engine runs on
// the test servers (internal/testenv): Redis with appendfsync always,
// SQLite and Badger in files at their default durability, a three-member
// etcd cluster; PostgreSQL (fsync off) and MariaDB (log flushed once a
// second) are not durable there, so their figures compare FUSE's cost
// with a cheaper write. CAIRN_CEILING_ENGINES picks some (default: all).
//
//	go test -run XXX -bench BenchmarkCeiling -benchtime 2000x -count 3 ./fuse
func BenchmarkCeiling(b *testing.B) {
	urls := map[string]func() string{
		"sqlite3": func() string { return "sqlite3://" + filepath.Join(b.TempDir(), "meta.db") },
		"badger":  func() string { return "badger://" + filepath.Join(b.TempDir(), "db") },
		"redis": func() string {
			return testenv.Redis(b, "--appendonly", "yes", "--appendfsync", "always").URL(1)
		},
		"postgres": func() string { return testenv.Postgres(b).URL("postgres") },
		"mysql": func() string {
			s := testenv.MariaDB(b)
			s.SQL(b, "CREATE DATABASE ceiling")
			return s.URL("ceiling")
		},
		"etcd": func() string { return testenv.Etcd(b).URL("ceiling") },
	}
	requireFUSE(b) // before any server starts
	names := strings.Fields(os.Getenv("CAIRN_CEILING_ENGINES"))
	if len(names) == 0 {
		names = []string{"sqlite3", "badger", "redis", "postgres", "mysql", "etcd"}
	}
	for _, name := range names {
		if urls[name] == nil {
			b.Fatalf("CAIRN_CEILING_ENGINES: no engine %q", name)
		}
		b.Run(name, func(b *testing.B) {
			url := formatVolume(b, urls[name]())
			// One client serves all three: an engine in a file allows one
			// process (Badger), and the probe is the engine's own.
			cairn, vol := mountOpen(b, url, time.Second)
			probe, ok := meta.Capability[meta.FloorProber](vol.Engine)
			if !ok {
				b.Fatalf("the %s engine has no floor probe", vol.Engine.Name())
			}
			ctx := context.Background()
			b.Run("floor", func(b *testing.B) {
				for b.Loop() {
					if err := probe.ProbeWrite(ctx); err != nil {
						b.Fatal(err)
					}
				}
			})
			targets := []target{
				mountTarget("null", mountCeiling(b, nil)),
				mountTarget("ceiling", mountCeiling(b, probe)),
				vfsTarget(vol),
				mountTarget("cairn", cairn),
			}
			for _, t := range targets {
				b.Run(t.name, func(b *testing.B) {
					runs := 0
					b.Run("mkdir", func(b *testing.B) {
						runs++
						names := dirNames(t.name, runs, b.N)
						t.timed(b, vol, names, t.mkdir)
						each(b, names, t.rmdir)
					})
					b.Run("rmdir", func(b *testing.B) {
						runs++
						names := dirNames(t.name, runs, b.N)
						each(b, names, t.mkdir)
						t.timed(b, vol, names, t.rmdir)
					})
				})
			}
		})
	}
}

// target is where BenchmarkCeiling makes and removes directories.
type target struct {
	name         string
	mkdir, rmdir func(name string) error
	// cairn: report the engine's round trips per operation (the others
	// make only the floor's one write).
	cairn bool
}

func mountTarget(name, dir string) target {
	return target{
		name:  name,
		mkdir: func(n string) error { return os.Mkdir(filepath.Join(dir, n), 0o755) },
		rmdir: func(n string) error { return os.Remove(filepath.Join(dir, n)) },
		cairn: name == "cairn",
	}
}

// vfsTarget calls cairn's VFS as the kernel's requests for a mkdir and an
// rmdir would, without FUSE: a LOOKUP of the new name and a GETATTR of the
// directory before a MKDIR, a GETATTR before an RMDIR.
func vfsTarget(vol *volume.Volume) target {
	ctx, v, root := context.Background(), vol.VFS, vol.VFS.Root()
	return target{
		name: "vfs",
		mkdir: func(n string) error {
			if _, err := v.Lookup(ctx, meta.RootCred, root, n); !errors.Is(err, meta.ErrNotFound) {
				return fmt.Errorf("lookup of a new name: %v", err)
			}
			if _, err := v.GetAttr(ctx, root); err != nil {
				return err
			}
			_, err := v.Mknod(ctx, meta.RootCred, root, n, meta.TypeDirectory, 0o755, 0)
			return err
		},
		rmdir: func(n string) error {
			if _, err := v.GetAttr(ctx, root); err != nil {
				return err
			}
			return v.Rmdir(ctx, meta.RootCred, root, n)
		},
		cairn: true,
	}
}

// dirNames are n names for run number run of target: no target uses
// another's names, which a client would remember as missing.
func dirNames(target string, run, n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s%d-%d", target, run, i)
	}
	return names
}

// timed runs op on every name as the benchmark's timed part and, for the
// cairn targets, reports the engine's round trips per operation.
func (t target) timed(b *testing.B, vol *volume.Volume, names []string, op func(string) error) {
	b.ResetTimer()
	before := vol.Engine.Stats().RoundTrips
	each(b, names, op)
	b.StopTimer()
	if t.cairn {
		b.ReportMetric(float64(vol.Engine.Stats().RoundTrips-before)/float64(b.N), "rtt/op")
	}
}

func each(b *testing.B, names []string, op func(string) error) {
	for _, n := range names {
		must(b, op(n))
	}
}

// mountCeiling mounts a ceilingFS with cairn's mount options and returns
// its directory.
func mountCeiling(b *testing.B, db meta.FloorProber) string {
	b.Helper()
	dir := b.TempDir()
	fs := &ceilingFS{RawFileSystem: gofuse.NewDefaultRawFileSystem(), db: db, names: map[string]uint64{}}
	srv, err := gofuse.NewServer(fs, dir, mountOptions(Options{FsName: "ceiling", DefaultPermissions: true}))
	if err != nil {
		testenv.Missing(b, "cannot mount FUSE here: %v", err)
	}
	go srv.Serve()
	must(b, srv.WaitMount())
	b.Cleanup(func() {
		if err := Unmount(srv); err != nil {
			b.Errorf("unmount: %v", err)
		}
		srv.Wait()
	})
	return dir
}

// ceilingFS is a flat file system of directories kept in memory; each
// MKDIR and RMDIR first makes one floor write on an engine, if it has
// one, and each LOOKUP of a missing name one floor read. It caches as a cairn mount does by default (one second).
type ceilingFS struct {
	gofuse.RawFileSystem
	db meta.FloorProber

	mu    sync.Mutex
	names map[string]uint64
	next  uint64
}

const ceilingTTL = time.Second

func (f *ceilingFS) persist() gofuse.Status {
	if f.db == nil {
		return gofuse.OK
	}
	if err := f.db.ProbeWrite(context.Background()); err != nil {
		return gofuse.EIO
	}
	return gofuse.OK
}

func (f *ceilingFS) entry(out *gofuse.EntryOut, ino uint64) {
	out.NodeId, out.Generation = ino, 1
	out.SetEntryTimeout(ceilingTTL)
	out.SetAttrTimeout(ceilingTTL)
	dirAttr(&out.Attr, ino)
}

func dirAttr(a *gofuse.Attr, ino uint64) {
	*a = gofuse.Attr{Ino: ino, Mode: 0o40755, Nlink: 2, Size: 4096, Blksize: 4096}
}

func (f *ceilingFS) Lookup(cancel <-chan struct{}, h *gofuse.InHeader, name string, out *gofuse.EntryOut) gofuse.Status {
	f.mu.Lock()
	ino, ok := f.names[name]
	f.mu.Unlock()
	if h.NodeId != 1 {
		return gofuse.ENOENT
	}
	if !ok {
		// A name it does not know: one read, as a cairn mount makes for
		// a name it has not cached as missing.
		if f.db != nil && f.db.ProbeRead(context.Background()) != nil {
			return gofuse.EIO
		}
		return gofuse.ENOENT
	}
	f.entry(out, ino)
	return gofuse.OK
}

func (f *ceilingFS) GetAttr(cancel <-chan struct{}, in *gofuse.GetAttrIn, out *gofuse.AttrOut) gofuse.Status {
	out.SetTimeout(ceilingTTL)
	dirAttr(&out.Attr, in.NodeId)
	return gofuse.OK
}

func (f *ceilingFS) Mkdir(cancel <-chan struct{}, in *gofuse.MkdirIn, name string, out *gofuse.EntryOut) gofuse.Status {
	if in.NodeId != 1 {
		return gofuse.EPERM
	}
	if st := f.persist(); st != gofuse.OK {
		return st
	}
	f.mu.Lock()
	f.next++
	ino := f.next + 1 // node 1 is the root
	f.names[name] = ino
	f.mu.Unlock()
	f.entry(out, ino)
	return gofuse.OK
}

func (f *ceilingFS) Rmdir(cancel <-chan struct{}, h *gofuse.InHeader, name string) gofuse.Status {
	if st := f.persist(); st != gofuse.OK {
		return st
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.names[name]; !ok {
		return gofuse.ENOENT
	}
	delete(f.names, name)
	return gofuse.OK
}

func (f *ceilingFS) Forget(nodeid, nlookup uint64) {}
