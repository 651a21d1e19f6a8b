package sql

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"cairn/internal/testenv"
	"cairn/meta"
)

// benchOps measures the common operations on a formatted engine and
// reports the statements each costs (rtt/op): the figure that does not
// drift with the machine's load.
func benchOps(b *testing.B, open func(b *testing.B) *Engine) {
	ctx := context.Background()
	setup := func(b *testing.B) (*Engine, meta.Ino) {
		e := open(b)
		if err := e.Init(ctx, testFormat(), false); err != nil {
			b.Fatal(err)
		}
		ino, _ := e.NextInodes(ctx, 1)
		if _, err := e.Mknod(ctx, meta.RootCred, meta.RootIno, "d", ino, meta.TypeDirectory, 0755, 0, ""); err != nil {
			b.Fatal(err)
		}
		return e, ino
	}
	measure := func(b *testing.B, e *Engine, op func(i int)) {
		b.ResetTimer()
		before := e.Stats()
		for i := 0; i < b.N; i++ {
			op(i)
		}
		b.StopTimer()
		after := e.Stats()
		b.ReportMetric(float64(after.RoundTrips-before.RoundTrips)/float64(b.N), "rtt/op")
		b.ReportMetric(float64(after.Retries-before.Retries)/float64(b.N), "retries/op")
	}
	must := func(b *testing.B, err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	mknod := func(b *testing.B, e *Engine, dir meta.Ino, name string, typ meta.FileType) meta.Ino {
		ino, err := e.NextInodes(ctx, 1)
		must(b, err)
		_, err = e.Mknod(ctx, meta.RootCred, dir, name, ino, typ, 0755, 0, "")
		must(b, err)
		return ino
	}
	b.Run("mkdir", func(b *testing.B) {
		e, d := setup(b)
		first, _ := e.NextInodes(ctx, uint64(b.N))
		measure(b, e, func(i int) {
			_, err := e.Mknod(ctx, meta.RootCred, d, fmt.Sprint(i), first+meta.Ino(i), meta.TypeDirectory, 0755, 0, "")
			must(b, err)
		})
	})
	b.Run("create", func(b *testing.B) {
		e, d := setup(b)
		first, _ := e.NextInodes(ctx, uint64(b.N))
		measure(b, e, func(i int) {
			_, err := e.Mknod(ctx, meta.RootCred, d, fmt.Sprint(i), first+meta.Ino(i), meta.TypeFile, 0644, 0, "")
			must(b, err)
		})
	})
	b.Run("unlink", func(b *testing.B) {
		e, d := setup(b)
		for i := 0; i < b.N; i++ {
			mknod(b, e, d, fmt.Sprint(i), meta.TypeFile)
		}
		measure(b, e, func(i int) {
			_, _, err := e.Unlink(ctx, meta.RootCred, d, fmt.Sprint(i), 1)
			must(b, err)
		})
	})
	// unlink_delete: the last link of a file nobody holds open, removed
	// with its inode in one call, as a mount removes one.
	b.Run("unlink_delete", func(b *testing.B) {
		e, d := setup(b)
		inos := make([]meta.Ino, b.N)
		for i := range inos {
			inos[i] = mknod(b, e, d, fmt.Sprint(i), meta.TypeFile)
		}
		measure(b, e, func(i int) {
			_, _, _, err := e.UnlinkDelete(ctx, meta.RootCred, d, fmt.Sprint(i), 1, inos[i])
			must(b, err)
		})
	})
	b.Run("rename", func(b *testing.B) {
		e, d := setup(b)
		mknod(b, e, d, "0", meta.TypeFile)
		measure(b, e, func(i int) {
			_, _, _, err := e.Rename(ctx, meta.RootCred, d, fmt.Sprint(i%2), d, fmt.Sprint((i+1)%2), 0, 1)
			must(b, err)
		})
	})
	b.Run("rename_across", func(b *testing.B) {
		e, d := setup(b)
		d2 := mknod(b, e, meta.RootIno, "d2", meta.TypeDirectory)
		mknod(b, e, d, "f", meta.TypeFile)
		dirs := []meta.Ino{d, d2}
		measure(b, e, func(i int) {
			_, _, _, err := e.Rename(ctx, meta.RootCred, dirs[i%2], "f", dirs[(i+1)%2], "f", 0, 1)
			must(b, err)
		})
	})
	b.Run("mvdir_across", func(b *testing.B) {
		e, d := setup(b)
		d2 := mknod(b, e, meta.RootIno, "d2", meta.TypeDirectory)
		mknod(b, e, d, "sub", meta.TypeDirectory)
		dirs := []meta.Ino{d, d2}
		measure(b, e, func(i int) {
			_, _, _, err := e.Rename(ctx, meta.RootCred, dirs[i%2], "sub", dirs[(i+1)%2], "sub", 0, 1)
			must(b, err)
		})
	})
	b.Run("link", func(b *testing.B) {
		e, d := setup(b)
		f := mknod(b, e, d, "f", meta.TypeFile)
		measure(b, e, func(i int) {
			_, err := e.Link(ctx, meta.RootCred, f, d, fmt.Sprint(i))
			must(b, err)
		})
	})
	b.Run("setattr", func(b *testing.B) {
		e, d := setup(b)
		f := mknod(b, e, d, "f", meta.TypeFile)
		measure(b, e, func(i int) {
			mode := uint16(0600 + i%2)
			_, err := e.SetAttr(ctx, meta.RootCred, f, meta.SetAttr{Mode: &mode})
			must(b, err)
		})
	})
	b.Run("setxattr", func(b *testing.B) {
		e, d := setup(b)
		f := mknod(b, e, d, "f", meta.TypeFile)
		measure(b, e, func(i int) {
			must(b, e.SetXattr(ctx, meta.RootCred, f, "user.k", []byte(fmt.Sprint(i)), 0))
		})
	})
	b.Run("truncate", func(b *testing.B) {
		e, d := setup(b)
		f := mknod(b, e, d, "f", meta.TypeFile)
		measure(b, e, func(i int) {
			_, err := e.Truncate(ctx, meta.RootCred, f, uint64(i%2)*8192)
			must(b, err)
		})
	})
	b.Run("setlk", func(b *testing.B) {
		e, d := setup(b)
		f := mknod(b, e, d, "f", meta.TypeFile)
		owner := meta.LockOwner{Session: 1, Owner: 7}
		measure(b, e, func(i int) {
			typ := []uint32{meta.LockWrite, meta.LockUnlock}[i%2]
			must(b, e.SetLk(ctx, f, owner, meta.Lock{Type: typ, Start: 0, End: 4095, Pid: 1}))
		})
	})
	b.Run("flock", func(b *testing.B) {
		e, d := setup(b)
		f := mknod(b, e, d, "f", meta.TypeFile)
		owner := meta.LockOwner{Session: 1, Owner: 7}
		measure(b, e, func(i int) {
			must(b, e.Flock(ctx, f, owner, []uint32{meta.LockWrite, meta.LockUnlock}[i%2]))
		})
	})
	b.Run("rmdir", func(b *testing.B) {
		e, d := setup(b)
		for i := 0; i < b.N; i++ {
			mknod(b, e, d, fmt.Sprint(i), meta.TypeDirectory)
		}
		measure(b, e, func(i int) {
			must(b, e.Rmdir(ctx, meta.RootCred, d, fmt.Sprint(i)))
		})
	})
	b.Run("lookup", func(b *testing.B) {
		e, d := setup(b)
		mknod(b, e, d, "f", meta.TypeFile)
		measure(b, e, func(int) {
			_, _, err := e.Lookup(ctx, d, "f")
			must(b, err)
		})
	})
	b.Run("getattr", func(b *testing.B) {
		e, d := setup(b)
		f := mknod(b, e, d, "f", meta.TypeFile)
		measure(b, e, func(int) {
			_, err := e.GetAttr(ctx, f)
			must(b, err)
		})
	})
	b.Run("readdir_1k", func(b *testing.B) {
		e, d := setup(b)
		for i := 0; i < 1000; i++ {
			mknod(b, e, d, fmt.Sprintf("f%04d", i), meta.TypeFile)
		}
		measure(b, e, func(int) {
			ents, err := e.Readdir(ctx, d, "", 1000, true)
			must(b, err)
			if len(ents) != 1000 {
				b.Fatalf("Readdir listed %d entries", len(ents))
			}
		})
	})
	b.Run("write", func(b *testing.B) {
		e, d := setup(b)
		f := mknod(b, e, d, "f", meta.TypeFile)
		first, _ := e.NextSlices(ctx, uint64(b.N))
		measure(b, e, func(i int) {
			s := meta.Slice{ID: first + uint64(i), Size: 4096, Len: 4096}
			_, _, err := e.Write(ctx, f, uint32(i), s, time.Now().UnixNano())
			must(b, err)
		})
	})
}

func BenchmarkSQLite(b *testing.B) {
	benchOps(b, func(b *testing.B) *Engine {
		e, err := Open("sqlite3://" + filepath.Join(b.TempDir(), "vol.db") + sqliteBenchParams)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { e.Close() })
		return e
	})
}

func BenchmarkPostgres(b *testing.B) {
	p := startPostgres(b)
	benchOps(b, func(b *testing.B) *Engine { return p.engine(b) })
}

func BenchmarkMariaDB(b *testing.B) {
	m := &mariaEnv{srv: testenv.MariaDB(b)}
	benchOps(b, func(b *testing.B) *Engine { return m.engine(b) })
}

// sqliteBenchParams are extra URL parameters for BenchmarkSQLite, e.g.
// "?_synchronous=NORMAL" to measure without an fsync per commit.
var sqliteBenchParams = os.Getenv("CAIRN_SQLITE_BENCH_PARAMS")
