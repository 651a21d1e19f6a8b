package meta_test

import (
	"context"
	"sync/atomic"
	"testing"

	"cairn/meta"
	"cairn/meta/kv"
)

// BenchmarkDirStatsNoteReached measures what a Lookup that went to the
// engine does after it on the statistics' hot path: cache the
// attributes and note the file's directory and length, from several
// goroutines at once.
func BenchmarkDirStatsNoteReached(b *testing.B) {
	ctx := context.Background()
	eng := kv.OpenMem()
	defer eng.Close()
	if err := eng.Init(ctx, meta.Format{Name: "t", BlockSize: 4 << 20, Version: meta.FormatVersion}, false); err != nil {
		b.Fatal(err)
	}
	c := meta.NewClient(eng, meta.ClientConfig{})
	if !c.DirStatsOn() {
		b.Fatal("no statistics on the in-memory engine")
	}
	var next atomic.Uint64
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := next.Add(1)
			c.NoteReached(meta.RootIno, meta.Ino(100+i%4096), meta.Attr{Type: meta.TypeFile, Mode: 0o644, Nlink: 1, Length: i % 65536})
		}
	})
}
