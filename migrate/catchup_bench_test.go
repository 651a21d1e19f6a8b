package migrate

import (
	"fmt"
	"testing"

	"cairn/internal/testenv"
	"cairn/meta"
)

// benchDestinations are the DST engines the benchmarks copy into, one of
// each family.
var benchDestinations = []struct {
	name string
	url  func(b *testing.B) string
}{
	{"SQLite", func(b *testing.B) string { return "sqlite3://" + b.TempDir() + "/dst.db" }},
	{"Postgres", func(b *testing.B) string { return testenv.Postgres(b).URL("postgres") }},
	{"Redis", func(b *testing.B) string { return testenv.Redis(b).URL(0) }},
	{"Etcd", func(b *testing.B) string { return testenv.Etcd(b).URL("dst") }},
}

// BenchmarkCopyInodes measures how many inodes per second CopyInodes puts
// into each family of DST: the rate the last round, and so the pause at
// the switch, depends on. SRC is an in-memory volume of 10 directories of
// 100 files; each iteration writes a new slice to every file and copies
// the 1,010 inodes (attributes, entries, a changed slice list each).
//
//	go test -run XXX -bench CopyInodes -benchtime 5x ./migrate
func BenchmarkCopyInodes(b *testing.B) {
	for _, d := range benchDestinations {
		b.Run(d.name, func(b *testing.B) {
			ctx := b.Context()
			src := openEngine(b, "mem://")
			if err := src.Init(ctx, testFormat, false); err != nil {
				b.Fatal(err)
			}
			inodes := map[meta.Ino]bool{}
			var files []meta.Ino
			for i := range 10 {
				dir, err := src.NextInodes(ctx, 1)
				if err == nil {
					_, err = src.Mknod(ctx, meta.RootCred, meta.RootIno, fmt.Sprintf("d%d", i), dir, meta.TypeDirectory, 0755, 0, "")
				}
				if err != nil {
					b.Fatal(err)
				}
				inodes[dir] = true
				for j := range 100 {
					ino, err := src.NextInodes(ctx, 1)
					if err == nil {
						_, err = src.Mknod(ctx, meta.RootCred, dir, fmt.Sprintf("f%d", j), ino, meta.TypeFile, 0644, 0, "")
					}
					if err != nil {
						b.Fatal(err)
					}
					inodes[ino] = true
					files = append(files, ino)
				}
			}
			dst := openEngine(b, d.url(b))
			if err := BulkCopy(ctx, src, dst, nil); err != nil {
				b.Fatal(err)
			}
			copied := 0
			b.ResetTimer()
			for b.Loop() {
				b.StopTimer()
				for _, ino := range files {
					id, err := src.NextSlices(ctx, 1)
					if err == nil {
						_, _, err = src.Write(ctx, ino, 0, meta.Slice{ID: id, Size: 4096, Len: 4096}, 1)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				n, err := CopyInodes(ctx, src, dst, inodes)
				if err != nil {
					b.Fatal(err)
				}
				copied += n
			}
			b.ReportMetric(float64(copied)/b.Elapsed().Seconds(), "inodes/s")
		})
	}
}
