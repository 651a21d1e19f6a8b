package metatest

import (
	"context"
	"fmt"
	"testing"

	"cairn/meta"
)

// StatsMiscounted lists the directories of eng whose statistics differ
// from a full count of the tree (none when they are exact), for tests
// that check what the statistics hold after a failure. It fails t when
// it cannot read them.
func StatsMiscounted(t testing.TB, eng meta.Engine) []string {
	t.Helper()
	ctx := context.Background()
	count, err := meta.CountTree(ctx, eng, meta.RootIno)
	if err != nil {
		t.Fatalf("CountTree: %v", err)
	}
	stats, ok := meta.Capability[meta.DirStatStore](eng)
	if !ok {
		t.Fatal("the engine keeps no directory statistics")
	}
	all, err := stats.AllDirStats(ctx)
	if err != nil {
		t.Fatalf("AllDirStats: %v", err)
	}
	var wrong []string
	for dir, want := range count.Stats {
		if all[dir] != want {
			wrong = append(wrong, fmt.Sprintf("statistics of directory %d %+v, a full count %+v", dir, all[dir], want))
		}
	}
	for dir, got := range all {
		if _, ok := count.Stats[dir]; !ok && got != (meta.DirStat{}) {
			wrong = append(wrong, fmt.Sprintf("directory %d, not in the tree, has statistics %+v", dir, got))
		}
	}
	return wrong
}

// QuotaMiscounted says how the usage of the quota on dir differs from a
// count of its tree, if it does.
func QuotaMiscounted(t testing.TB, eng meta.Engine, dir meta.Ino) []string {
	t.Helper()
	ctx := context.Background()
	q, err := meta.GetQuota(ctx, eng, dir)
	if err != nil {
		t.Fatalf("GetQuota: %v", err)
	}
	used, err := meta.TreeUsage(ctx, eng, dir)
	if err != nil {
		t.Fatalf("TreeUsage: %v", err)
	}
	if q.Space != used.Space || q.Inodes != used.Inodes {
		return []string{fmt.Sprintf("usage of the quota on %d: %d bytes, %d inodes; a count of its tree %d and %d", dir, q.Space, q.Inodes, used.Space, used.Inodes)}
	}
	return nil
}
