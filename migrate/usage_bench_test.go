package migrate

import (
	"testing"

	"cairn/meta"
)

// BenchmarkCopyUsage measures copyUsage at the switch on a volume of
// 100,000 directories with statistics, none of which changed since the
// bulk copy: the part of the pause that grows with the number of
// directories (both engines' statistics read whole) whatever happened
// during the migration. SRC is an in-memory volume; DST each family.
//
//	go test -run XXX -bench CopyUsage -benchtime 5x ./migrate
func BenchmarkCopyUsage(b *testing.B) {
	const dirs = 100_000
	stats := make(map[meta.Ino]meta.DirStat, dirs)
	for i := range meta.Ino(dirs) {
		stats[meta.RootIno+1+i] = meta.DirStat{Space: int64(i) * 4096, Inodes: int64(i % 50)}
	}
	for _, d := range benchDestinations {
		b.Run(d.name, func(b *testing.B) {
			ctx := b.Context()
			src, dst := openEngine(b, "mem://"), openEngine(b, d.url(b))
			for _, e := range []meta.Engine{src, dst} {
				if err := e.Init(ctx, testFormat, false); err != nil {
					b.Fatal(err)
				}
				s, _ := meta.Capability[meta.DirStatStore](e)
				if err := s.SetDirStats(ctx, stats, nil); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				if err := copyUsage(ctx, src, dst); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
