package fsck

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"cairn/chunk"
	"cairn/gc"
	"cairn/meta"
	"cairn/meta/engines"
	"cairn/object"
)

// BenchmarkScan measures fsck and gc on a volume of CAIRN_BENCH_FILES
// files (default 20000) in 100 directories, one slice and one object
// each, on SQLite with its blocks in a local directory, built through the
// engine:
//
//	CAIRN_BENCH_FILES=100000 go test -run - -bench Scan -benchtime 3x ./fsck
func BenchmarkScan(b *testing.B) {
	files := 20000
	if s := os.Getenv("CAIRN_BENCH_FILES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		files = n
	}
	ctx := context.Background()
	dir := b.TempDir()
	// The build need not be durable: only the scan is measured.
	eng, err := engines.Open("sqlite3://" + filepath.Join(dir, "vol.db") + "?_synchronous=OFF")
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	f := meta.Format{Name: "bench", UUID: "u", Storage: "file", Bucket: filepath.Join(dir, "blocks"), BlockSize: 4 << 20, Compression: "none", Version: 1}
	if err := eng.Init(ctx, f, false); err != nil {
		b.Fatal(err)
	}
	store, err := object.Open("file", f.Bucket, object.Options{})
	if err != nil {
		b.Fatal(err)
	}
	first, err := eng.NextInodes(ctx, uint64(files+100))
	if err != nil {
		b.Fatal(err)
	}
	firstSlice, err := eng.NextSlices(ctx, uint64(files))
	if err != nil {
		b.Fatal(err)
	}
	ino := first
	var dirs []meta.Ino
	for d := 0; d < 100; d++ {
		if _, err := eng.Mknod(ctx, meta.RootCred, meta.RootIno, fmt.Sprint("d", d), ino, meta.TypeDirectory, 0o755, 0, ""); err != nil {
			b.Fatal(err)
		}
		dirs = append(dirs, ino)
		ino++
	}
	for i := 0; i < files; i++ {
		if _, err := eng.Mknod(ctx, meta.RootCred, dirs[i%100], fmt.Sprint("f", i), ino, meta.TypeFile, 0o644, 0, ""); err != nil {
			b.Fatal(err)
		}
		id := firstSlice + uint64(i)
		if err := store.Put(ctx, chunk.SliceKeys(id, 1000, int(f.BlockSize))[0], []byte("x")); err != nil {
			b.Fatal(err)
		}
		if _, _, err := eng.Write(ctx, ino, 0, meta.Slice{ID: id, Size: 1000, Len: 1000}, 1); err != nil {
			b.Fatal(err)
		}
		ino++
	}
	b.Run("fsck", func(b *testing.B) {
		for range b.N {
			r, err := Check(ctx, eng, Options{Store: store, BlockSize: int(f.BlockSize)})
			if err != nil || len(r.Problems) != 0 {
				b.Fatalf("%v %+v", err, r)
			}
		}
		b.ReportMetric(float64(files*b.N)/b.Elapsed().Seconds(), "files/s")
	})
	b.Run("gc", func(b *testing.B) {
		for range b.N {
			r, err := gc.Collect(ctx, eng, store, int(f.BlockSize), gc.Options{})
			if err != nil || r.Leaked.Objects != 0 || r.Listed.Objects != int64(files) {
				b.Fatalf("%v %+v", err, r)
			}
		}
		b.ReportMetric(float64(files*b.N)/b.Elapsed().Seconds(), "objects/s")
	})
}
