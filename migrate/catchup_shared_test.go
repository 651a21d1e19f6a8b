package migrate

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"cairn/internal/testenv"
	"cairn/meta"
)

// deadWatch is a DST whose dead-slice queue is read before and after
// every ReplaceInodes call, to see whether a slice passes through it.
type deadWatch struct {
	meta.Engine
	replacer meta.InodeReplacer
	watched  uint64
	calls    int
	deadAt   []string // when the watched slice was dead
}

func (w *deadWatch) ReplaceInodes(ctx context.Context, states []meta.InodeState) (meta.Replaced, error) {
	w.calls++
	if err := w.look(ctx, "before"); err != nil {
		return meta.Replaced{}, err
	}
	done, err := w.replacer.ReplaceInodes(ctx, states)
	if err != nil {
		return done, err
	}
	return done, w.look(ctx, "after")
}

func (w *deadWatch) look(ctx context.Context, when string) error {
	dead, err := w.Engine.DeadSlices(ctx, 1<<20)
	for _, d := range dead {
		if d.ID == w.watched {
			w.deadAt = append(w.deadAt, fmt.Sprintf("%s call %d", when, w.calls))
		}
	}
	return err
}

func (w *deadWatch) DropReferences(ctx context.Context, slices []meta.Slice) error {
	return w.replacer.DropReferences(ctx, slices)
}

func (w *deadWatch) RaiseCounters(ctx context.Context, nextInode, nextSlice uint64) error {
	return w.replacer.RaiseCounters(ctx, nextInode, nextSlice)
}

// dstEngines are the empty DSTs of the tests that run on each family.
var dstEngines = []struct {
	name string
	url  func(t *testing.T) string
}{
	{"SQLite", func(t *testing.T) string { return "sqlite3://" + filepath.Join(t.TempDir(), "dst.db") }},
	{"Redis", func(t *testing.T) string { return testenv.Redis(t).URL(0) }},
	{"Badger", func(t *testing.T) string { return "badger://" + t.TempDir() }},
}

// TestCopyInodesSharedSliceAcrossCalls: a clone's slice, shared by two
// inodes that land in different ReplaceInodes calls of one round — the
// first call's inode drops it, the second's gains it — never reaches
// DST's dead-slice queue (its blocks would be deleted), and once nothing
// names it, it does.
func TestCopyInodesSharedSliceAcrossCalls(t *testing.T) {
	for _, d := range dstEngines {
		t.Run(d.name, func(t *testing.T) {
			ctx := t.Context()
			src := sqliteVolume(t)
			mk := func(name string) meta.Ino {
				ino, err := src.NextInodes(ctx, 1)
				if err == nil {
					_, err = src.Mknod(ctx, meta.RootCred, meta.RootIno, name, ino, meta.TypeFile, 0644, 0, "")
				}
				if err != nil {
					t.Fatal(err)
				}
				return ino
			}
			round := map[meta.Ino]bool{}
			first := mk("first")
			round[first] = true
			for i := range replaceBatch {
				round[mk(fmt.Sprintf("filler%d", i))] = true
			}
			last := mk("last")
			round[last] = true
			id, err := src.NextSlices(ctx, 1)
			if err != nil {
				t.Fatal(err)
			}
			shared := meta.Slice{ID: id, Size: 4096, Len: 4096}
			if _, _, err := src.Write(ctx, first, 0, shared, 1); err != nil {
				t.Fatal(err)
			}
			dst := openEngine(t, d.url(t))
			if err := BulkCopy(ctx, src, dst, nil); err != nil {
				t.Fatal(err)
			}
			// The slice moves from the round's first inode to its last,
			// as a clone and a truncate of the original would move it.
			if _, _, err := src.Write(ctx, last, 0, shared, 2); err != nil {
				t.Fatal(err)
			}
			if _, err := src.Truncate(ctx, meta.RootCred, first, 0); err != nil {
				t.Fatal(err)
			}
			replacer, _ := meta.Capability[meta.InodeReplacer](dst)
			watch := &deadWatch{Engine: dst, replacer: replacer, watched: id}
			if _, err := CopyInodes(ctx, src, watch, round); err != nil {
				t.Fatal(err)
			}
			if watch.calls < 2 {
				t.Fatalf("the round took %d ReplaceInodes calls; the test needs two", watch.calls)
			}
			if len(watch.deadAt) > 0 {
				t.Errorf("slice %d, named throughout by one inode or the other, was in the dead-slice queue %v (of %d calls)", id, watch.deadAt, watch.calls)
			}
			if dead := deadIDs(t, dst); dead[id] {
				t.Errorf("slice %d dead after the round while inode %d names it", id, last)
			}
			if _, _, err := src.Unlink(ctx, meta.RootCred, meta.RootIno, "last", 0); err != nil {
				t.Fatal(err)
			}
			if _, err := CopyInodes(ctx, src, dst, map[meta.Ino]bool{meta.RootIno: true}); err != nil {
				t.Fatal(err)
			}
			if dead := deadIDs(t, dst); !dead[id] {
				t.Errorf("slice %d not dead in DST once nothing names it", id)
			}
		})
	}
}

func deadIDs(t *testing.T, e meta.Engine) map[uint64]bool {
	t.Helper()
	dead, err := e.DeadSlices(t.Context(), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	out := map[uint64]bool{}
	for _, d := range dead {
		out[d.ID] = true
	}
	return out
}
