package redis

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"cairn/meta"
)

// TestReaddirHugeStreams lists a large directory in pages: every page is
// at most the limit, names come in byte order without repeats or gaps,
// and each page costs one round trip however large the directory.
func TestReaddirHugeStreams(t *testing.T) {
	e := formatted(t)
	ctx := context.Background()
	n := 20000
	if testing.Short() {
		n = 3000
	}
	dir, err := e.NextInodes(ctx, uint64(n+1))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Mknod(ctx, meta.RootCred, meta.RootIno, "huge", dir, meta.TypeDirectory, 0755, 0, ""); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 8 {
				if _, err := e.Mknod(ctx, meta.RootCred, dir, fmt.Sprintf("f%07d", i), dir+1+meta.Ino(i), meta.TypeFile, 0644, 0, ""); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	const page = 500
	after, seen := "", 0
	for pages := 0; ; pages++ {
		before := e.Stats().RoundTrips
		ents, err := e.Readdir(ctx, dir, after, page, pages%2 == 0)
		if err != nil {
			t.Fatal(err)
		}
		if rtt := e.Stats().RoundTrips - before; rtt != 1 {
			t.Errorf("a page cost %d round trips", rtt)
		}
		if len(ents) > page {
			t.Fatalf("a page of %d entries, limit %d", len(ents), page)
		}
		if len(ents) == 0 {
			break
		}
		for _, en := range ents {
			if want := fmt.Sprintf("f%07d", seen); en.Name != want || en.Ino != dir+1+meta.Ino(seen) {
				t.Fatalf("entry %d is %q (inode %d), want %q", seen, en.Name, en.Ino, want)
			}
			seen++
		}
		after = ents[len(ents)-1].Name
	}
	if seen != n {
		t.Errorf("listed %d entries, want %d", seen, n)
	}
}
