package mdtest

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cairn/bench"
	"cairn/bench/phase"
	"cairn/meta"
	"cairn/meta/engines"
)

func TestNodes(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want int
	}{
		{Config{Dirs: 3, Depth: 0}, 1},
		{Config{Dirs: 3, Depth: 1}, 4},
		{Config{Dirs: 6, Depth: 4}, 1 + 6 + 36 + 216 + 1296},
		{Config{Dirs: 0, Depth: 0}, 1},
	} {
		if got := c.cfg.Nodes(); got != c.want {
			t.Errorf("%+v: %d nodes, want %d", c.cfg, got, c.want)
		}
	}
}

// TestRun builds, stats and removes trees on each embedded engine and
// checks that every phase ran over the right number of items and that the
// volume is as empty afterwards as before.
func TestRun(t *testing.T) {
	for _, url := range []string{"mem://", "sqlite3://" + filepath.Join(t.TempDir(), "md.db")} {
		scheme, _, _ := strings.Cut(url, "://")
		t.Run(scheme, func(t *testing.T) {
			if !slices.Contains(engines.Schemes(), scheme) {
				t.Skipf("issue 2: engine %q is not in meta/engines yet", scheme)
			}
			ctx := context.Background()
			v, err := bench.Open(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			before, err := v.Engine.Usage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			cfg := Config{Dirs: 2, Depth: 2, Items: 3, Threads: 2, Iterations: 2}
			var progress phase.Counter
			res, err := Run(ctx, v, "/a/b", cfg, &progress)
			if err != nil {
				t.Fatal(err)
			}
			nodes := 2 * 7
			for _, it := range res.Iterations {
				for _, p := range Phases {
					want := nodes * 3
					if strings.HasPrefix(p, "Tree") {
						want = nodes
					}
					if it[p].Items != want || it[p].Seconds <= 0 {
						t.Errorf("%s: %+v, want %d items", p, it[p], want)
					}
					// Progress counted every item, in each iteration.
					if total, done := progress.Totals[p], progress.Done[p]; total != int64(want) || done != int64(want*cfg.Iterations) {
						t.Errorf("progress of %s: %d done, total %d; want %d in each of %d iterations", p, done, total, want, cfg.Iterations)
					}
				}
			}
			if len(res.Summary) != len(Phases) {
				t.Errorf("summary of %d phases, want %d", len(res.Summary), len(Phases))
			}
			a, _, err := v.Engine.Lookup(ctx, meta.RootIno, "a")
			if err != nil {
				t.Fatal(err)
			}
			b, _, err := v.Engine.Lookup(ctx, a, "b")
			if err != nil {
				t.Fatal(err)
			}
			if ents, err := v.Engine.Readdir(ctx, b, "", 100, false); err != nil || len(ents) != 0 {
				t.Errorf("left in /a/b: %v (%v)", ents, err)
			}
			after, err := v.Engine.Usage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if after.Inodes != before.Inodes+2 {
				t.Errorf("inodes %d after, %d before: want only /a and /b more", after.Inodes, before.Inodes)
			}
			var out bytes.Buffer
			if err := res.WriteText(&out); err != nil {
				t.Fatal(err)
			}
			for _, p := range Phases {
				if !strings.Contains(out.String(), "   "+p) {
					t.Errorf("summary lacks %q:\n%s", p, out.String())
				}
			}
		})
	}
}

func TestRefusesUnformatted(t *testing.T) {
	url := "sqlite3://" + filepath.Join(t.TempDir(), "empty.db")
	if !slices.Contains(engines.Schemes(), "sqlite3") {
		t.Skip("issue 2: engine sqlite3 is not in meta/engines yet")
	}
	_, err := bench.OpenExisting(context.Background(), url)
	if err == nil || !strings.Contains(err.Error(), "cairn format") {
		t.Errorf("mdtest on an unformatted database: %v, want advice to run cairn format", err)
	}
}
